import torch

# The accelerator this build targets, if the machine has one (CUDA, ROCm, MPS,
# XPU, ...), else the CPU.
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
x = torch.randn(1000, 1000, device=device)
y = x @ x
if device.type != "cpu":
    torch.accelerator.synchronize()  # the same call for every backend
count = torch.accelerator.device_count()
print("computed on", y.device.type, "| accelerators:", count)
