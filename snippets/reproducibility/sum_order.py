import torch

a, b, c = torch.tensor([1e8, 1.0, -1e8])
# Floating-point addition is not associative: the order of a sum matters.
print("(a + b) + c =", ((a + b) + c).item())
print("(a + c) + b =", ((a + c) + b).item())
