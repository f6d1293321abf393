import torch
from torch import nn

net = nn.Linear(3, 1, device="meta")
x = torch.ones(2, 3)  # cpu
try:
    net(x)
except RuntimeError as err:
    print("RuntimeError:", err)

device = next(net.parameters()).device
print(net(x.to(device)).shape)  # move the input to where the model is
