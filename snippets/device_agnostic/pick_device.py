import torch

# The classic choice, written once at the top of a script: CUDA when it can be
# used, else the CPU.
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("classic:", device)

# The vendor-neutral spelling (check_available= needs PyTorch 2.7+): whatever
# accelerator this build can use (CUDA, ROCm, Apple MPS, Intel XPU, ...), else
# the CPU.
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator if accelerator is not None else torch.device("cpu")
print("torch.accelerator:", device)

# Everything after that names only `device`, never "cuda" or "cpu".
model = torch.nn.Linear(3, 1).to(device)
x = torch.ones(4, 3, device=device)
print("output on:", model(x).device)
