import torch

# a local suffix such as +cu132 or +cpu names the build
print("version:", torch.__version__)
# None: this PyTorch cannot use an NVIDIA GPU at all
print("built for CUDA:", torch.version.cuda)
# set only in a ROCm build, the one for AMD GPUs (whose CUDA entry is None)
print("built for ROCm:", torch.version.hip)
print("GPU usable now:", torch.cuda.is_available())
