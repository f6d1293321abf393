import torch

# Without torch.accelerator: ask each backend in turn, else use the CPU.
if torch.cuda.is_available():  # NVIDIA, and AMD with ROCm
    device = torch.device("cuda")
elif torch.backends.mps.is_available():  # Apple silicon
    device = torch.device("mps")
else:
    device = torch.device("cpu")
print(f"using {device}")
