import torch

# Older releases have no torch.version.xpu: read it with a default.
print("XPU:", getattr(torch.version, "xpu", None))
