import torch

print("version:", torch.__version__)  # a local suffix such as +cu130 or +cpu names the build
print("built for CUDA:", torch.version.cuda)  # None: this PyTorch cannot use an NVIDIA GPU at all
print("GPU usable now:", torch.cuda.is_available())
