import torch
from torch import nn

device = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")

model = nn.Linear(3, 1).to(device)  # first move the model...
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # ...then hand its parameters to the optimizer
print(all(p.device == next(model.parameters()).device for p in optimizer.param_groups[0]["params"]))
