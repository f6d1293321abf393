import torch

MiB = 2**20
# cuda, mps, xpu, ... or None
device = torch.accelerator.current_accelerator(check_available=True)
if device is None:
    raise SystemExit(
        "This example needs a GPU or another accelerator (CUDA, MPS, XPU, ...);"
        " none is available."
    )
x = torch.empty(256 * MiB, dtype=torch.uint8, device=device)
# the peak restarts from what is allocated now: x
torch.accelerator.reset_peak_memory_stats()
y = x.float()  # four times as large, alongside x for a moment
del x, y
allocated = torch.accelerator.memory_allocated() / MiB
reserved = torch.accelerator.memory_reserved() / MiB
peak = torch.accelerator.max_memory_allocated() / MiB
print(
    f"{device.type}: allocated {allocated:.0f} MiB, "
    f"reserved {reserved:.0f} MiB, peak {peak:.0f} MiB"
)
torch.accelerator.empty_cache()
