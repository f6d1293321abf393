import torch


def choose_device() -> torch.device:
    """The best device this machine offers: a CUDA (or ROCm) GPU, then Apple's GPU, then the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


# is_built(): this PyTorch was compiled with MPS support (macOS wheels are).
# is_available(): ... and this Mac can use it right now (a recent enough macOS, a Metal GPU).
print("MPS built:", torch.backends.mps.is_built(), "available:", torch.backends.mps.is_available())
print("chosen:", choose_device())
