import torch

# Naming a device needs no hardware: each backend has its own type.
for name in ("cuda:0", "mps", "xpu:1"):
    device = torch.device(name)
    print(f"{name:7} type={device.type} index={device.index}")
