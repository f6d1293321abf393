import torch
from torch import nn

print(torch.get_default_device())
with torch.device("meta"):  # the default device, for this block only
    x = torch.ones(2)
    layer = nn.Linear(3, 1)
    print(torch.get_default_device(), x.device, layer.weight.device)
    print(torch.zeros(2, device="cpu").device)  # an explicit device still wins
print(torch.get_default_device(), torch.ones(2).device)
