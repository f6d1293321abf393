import torch

# Naming a device needs no GPU: these are only descriptions.
cpu, gpu = torch.device("cpu"), torch.device("cuda")
second_gpu = torch.device("cuda", 1)
print(cpu, gpu, second_gpu)
print(repr(second_gpu))
print(second_gpu == torch.device("cuda:1"))
# "cuda" carries no index: it means "the current CUDA device", which is not the
# same object as cuda:0
print(gpu.index, gpu == torch.device("cuda:0"))
