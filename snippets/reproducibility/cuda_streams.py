import torch
from torch import nn

# The same seed, drawn on the CPU and on the GPU: the CPU generator is a
# Mersenne Twister, a CUDA GPU's is Philox, so the numbers differ.
torch.manual_seed(0)
on_cpu = torch.rand(3)
torch.manual_seed(0)
on_gpu = torch.rand(3, device="cuda")
print("same numbers:", torch.equal(on_cpu, on_gpu.cpu()))

# A layer created on the GPU is initialised by the GPU's generator.
torch.manual_seed(0)
cpu_built = nn.Linear(4, 2)
torch.manual_seed(0)
gpu_built = nn.Linear(4, 2, device="cuda")
print("same weights:", torch.equal(cpu_built.weight, gpu_built.weight.cpu()))
