import torch

a = torch.ones(2)  # cpu
b = torch.ones(2, device="meta")
try:
    a + b
except RuntimeError as err:
    print("RuntimeError:", err)

print((a.to(b.device) + b).device)  # move one side first
print((b + torch.tensor(2.0)).device)  # a 0-dim CPU tensor is accepted as a scalar
