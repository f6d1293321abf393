import torch

before = torch.cuda.memory_allocated(0)
x = torch.ones(1024, 1024, device="cuda:0")  # 1 Mi float32 values = 4 MiB
print(x.nbytes // 2**20, "MiB of data")
print((torch.cuda.memory_allocated(0) - before) // 2**20, "MiB more allocated on cuda:0")
