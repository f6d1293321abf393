import torch

# One line picks whatever accelerator this build targets and the machine has: CUDA, ROCm, MPS, XPU.
device = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")
x = torch.randn(1000, 1000, device=device)
y = x @ x
if device.type != "cpu":
    torch.accelerator.synchronize()  # the same call for every backend
print("computed on", y.device.type, "| accelerators:", torch.accelerator.device_count())
