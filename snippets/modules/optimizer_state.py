import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.Adam(model.parameters())
x = torch.ones(2, 3)
model(x).sum().backward()
# creates Adam's running averages, matching the parameters as they are now
optimizer.step()
optimizer.zero_grad()

model.to(torch.float64)  # converts the parameters, not the optimizer's state
print(model.weight.dtype, optimizer.state[model.weight]["exp_avg"].dtype)
model(x.double()).sum().backward()
try:
    optimizer.step()
except RuntimeError as err:
    print("RuntimeError:", err)
