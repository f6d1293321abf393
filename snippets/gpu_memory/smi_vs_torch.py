import torch

MiB = 2**20
x = torch.ones(1024, 1024, 64, device="cuda")  # 256 MiB of float32
# what the driver reports, as nvidia-smi does
free, total = torch.cuda.mem_get_info()
used_on_card = (total - free) / MiB
allocated = torch.cuda.memory_allocated() / MiB
reserved = torch.cuda.memory_reserved() / MiB
print(f"tensors {allocated:.0f} MiB, reserved {reserved:.0f} MiB")
# plus the CUDA context and any other process
print(f"used on the card {used_on_card:.0f} MiB")
