import torch

t = torch.tensor([1, 2, 3])
# Created without a device: main memory, computed on by the CPU.
# get_device() is -1 for a CPU tensor, the index on a GPU
print(t.device, t.is_cuda, t.get_device())

# One tensor class for every device: the device is an attribute, not a type.
m = torch.ones(2, device="meta")
print(type(t).__name__, type(m).__name__, type(t) is type(m))
