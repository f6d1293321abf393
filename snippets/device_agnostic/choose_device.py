import torch


def choose_device() -> torch.device:
    """A CUDA (or ROCm) GPU if there is one, then Apple's GPU, then the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


# is_built(): this PyTorch was compiled with MPS support (macOS wheels are).
# is_available(): ... and this Mac can use it right now (a recent enough macOS,
# a Metal GPU).
built = torch.backends.mps.is_built()
available = torch.backends.mps.is_available()
print("MPS built:", built, "available:", available)
print("chosen:", choose_device())
