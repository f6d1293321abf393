import torch

# Intel GPUs are the "xpu" device type, with their own torch.xpu module shaped like torch.cuda.
print("XPU available:", torch.xpu.is_available(), "| devices:", torch.xpu.device_count())
