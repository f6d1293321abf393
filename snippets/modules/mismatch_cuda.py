import textwrap

import torch
from torch import nn

net = nn.Linear(3, 1).cuda(0)
x = torch.rand(2, 3).cuda(0)
print(net(x).device)

net.cpu()
try:
    net(x)
except RuntimeError as err:
    print(textwrap.fill(f"RuntimeError: {err}", width=80))
