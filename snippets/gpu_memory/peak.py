import torch
from torch import nn

MiB = 2**20
model = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10)).to("cuda")
batch = torch.randn(512, 4096, device="cuda")

for batch_size in (64, 512):
    torch.cuda.reset_peak_memory_stats()  # start a new peak from what is allocated now
    model(batch[:batch_size]).sum().backward()
    torch.cuda.synchronize()
    print(f"batch {batch_size:3}: peak {torch.cuda.max_memory_allocated() / MiB:6.1f} MiB")
