import textwrap

import torch

x = torch.tensor([1, 2, 3], device="cuda")
y = torch.tensor([1, 2, 3])
try:
    x + y
except RuntimeError as err:
    print(textwrap.fill(f"RuntimeError: {err}", width=80))

print(x + y.to(x.device))
print(x * torch.tensor(2))  # a 0-dim CPU tensor mixes with GPU tensors
