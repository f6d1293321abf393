import torch

x = torch.ones(3, device="cuda")
try:
    x.numpy()
except TypeError as err:
    print("TypeError:", err)
print(x.cpu().numpy())
