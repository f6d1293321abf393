import torch

before = torch.cuda.memory_allocated(0)
x = torch.ones(1024, 1024, device="cuda:0")  # 1 Mi float32 values = 4 MiB
print(x.nbytes // 2**20, "MiB of data")
more = (torch.cuda.memory_allocated(0) - before) // 2**20
print(more, "MiB more allocated on cuda:0")
