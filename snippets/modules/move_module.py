import torch
from torch import nn

net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
print(next(net.parameters()).device, net[0].weight.device)

moved = net.to("meta")  # converts every parameter and buffer, in the module...
print(moved is net)  # ...and returns the module itself
print({p.device for p in net.parameters()})

x = torch.ones(3)
# a tensor, by contrast, is copied and stays put
print(x.to("meta") is x, x.device)
