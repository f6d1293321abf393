import torch

MiB = 2**20
x = torch.ones(1024, 1024, 64, device="cuda")  # 256 MiB of float32
free, total = torch.cuda.mem_get_info()  # what the driver reports, as nvidia-smi does
used_on_card = (total - free) / MiB
print(f"tensors {torch.cuda.memory_allocated() / MiB:.0f} MiB, reserved {torch.cuda.memory_reserved() / MiB:.0f} MiB")
print(f"used on the card {used_on_card:.0f} MiB")  # plus the CUDA context and any other process
