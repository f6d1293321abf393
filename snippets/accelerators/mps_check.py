import torch

# this PyTorch has the MPS backend (the macOS wheels for Apple silicon do)
built = torch.backends.mps.is_built()
# and this machine can use it now (an Apple-silicon Mac with a recent macOS)
available = torch.backends.mps.is_available()
print("MPS built:", built, "| available:", available)
device = torch.device("mps" if available else "cpu")
print("computing on:", device)
