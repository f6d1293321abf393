import torch
from torch import nn

accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(3, 1).to(device)  # first move the model...
# ...then hand its parameters to the optimizer
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
params = optimizer.param_groups[0]["params"]
print(all(p.device == next(model.parameters()).device for p in params))
