import torch

x = torch.tensor([1, 2, 3], device="cuda")  # plain "cuda": the current GPU, cuda:0 unless changed
y = torch.ones(2, 3, device="cuda:0")
print(x)
print(y.device, y.is_cuda, y.get_device())
