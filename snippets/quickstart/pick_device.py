import torch

# Once, at the top of the script: the machine's accelerator (an NVIDIA or
# AMD GPU, Apple's MPS, Intel's XPU, ...) when one can be used right now,
# otherwise the CPU.
device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
print(f"using {device}")
