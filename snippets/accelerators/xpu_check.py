import torch

# Intel GPUs are the "xpu" device type, with their own torch.xpu module shaped
# like torch.cuda.
available, count = torch.xpu.is_available(), torch.xpu.device_count()
print("XPU available:", available, "| devices:", count)
