import torch

# plain "cuda": the current GPU, cuda:0 unless changed
x = torch.tensor([1, 2, 3], device="cuda")
y = torch.ones(2, 3, device="cuda:0")
print(x)
print(y.device, y.is_cuda, y.get_device())
