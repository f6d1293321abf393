import torch
from torch import nn

MiB = 2**20
model = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))
model.to("cuda")
batch = torch.randn(512, 4096, device="cuda")

for batch_size in (64, 512):
    # start a new peak from what is allocated now
    torch.cuda.reset_peak_memory_stats()
    model(batch[:batch_size]).sum().backward()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() / MiB
    print(f"batch {batch_size:3}: peak {peak:6.1f} MiB")
