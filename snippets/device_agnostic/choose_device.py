import torch


def choose_device() -> torch.device:
    """The fastest device this machine offers: an NVIDIA (or AMD ROCm) GPU, then Apple's GPU, then the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


# is_built(): this PyTorch was compiled with MPS support (macOS wheels are).
# is_available(): ... and this Mac can use it right now (macOS 12.3+, a Metal GPU).
print("MPS built:", torch.backends.mps.is_built(), "available:", torch.backends.mps.is_available())
print("chosen:", choose_device())
