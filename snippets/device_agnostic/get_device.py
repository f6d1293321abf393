import torch

x = torch.zeros(3)
# get_device() works on CPU tensors too: it returns -1 for "not on a GPU", the
# index otherwise.
print(x.device, x.get_device())
# x.device is the richer answer: a torch.device whose .index is None on the CPU.
print(repr(x.device), x.device.index)
