import torch

MiB = 2**20
device = torch.accelerator.current_accelerator(check_available=True)  # cuda, mps, xpu, ... or None
if device is None:
    raise SystemExit("This example needs a GPU or another accelerator (CUDA, MPS, XPU, ...); none is available.")
x = torch.empty(256 * MiB, dtype=torch.uint8, device=device)
torch.accelerator.reset_peak_memory_stats()  # the peak restarts from what is allocated now: x
y = x.float()  # four times as large, alongside x for a moment
del x, y
print(f"{device.type}: allocated {torch.accelerator.memory_allocated() / MiB:.0f} MiB, "
      f"reserved {torch.accelerator.memory_reserved() / MiB:.0f} MiB, "
      f"peak {torch.accelerator.max_memory_allocated() / MiB:.0f} MiB")
torch.accelerator.empty_cache()
