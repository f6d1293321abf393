import textwrap

import torch

# stands in for a GPU tensor: its data is not in CPU memory
x = torch.ones(3, device="meta")
try:
    x.numpy()
except TypeError as err:
    print(textwrap.fill(f"TypeError: {err}", width=80))

y = torch.ones(3, requires_grad=True) * 2  # part of a computation graph
try:
    y.numpy()
except RuntimeError as err:
    print(textwrap.fill(f"RuntimeError: {err}", width=80))

# The fix for both, on any device: leave the graph, copy to the CPU, convert.
print(y.detach().cpu().numpy())
