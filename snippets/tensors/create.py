import torch

a = torch.ones(2, 3, device="cpu")
# "meta" is a device every build of PyTorch has: a tensor there has a shape
# and a dtype but no data.
b = torch.zeros(2, 3, device=torch.device("meta"))
print(a.device, b.device)
print(b)
