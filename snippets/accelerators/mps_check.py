import torch

# is_built(): this PyTorch contains the MPS backend (the macOS wheels for Apple silicon do).
# is_available(): and this machine can use it now (an Apple-silicon Mac with a recent macOS).
print("MPS built:", torch.backends.mps.is_built(), "| available:", torch.backends.mps.is_available())
device = torch.device("mps" if torch.backends.mps.is_available() else "cpu")
print("computing on:", device)
