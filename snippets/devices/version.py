import torch

print("PyTorch", torch.__version__)
# None on a CPU-only build; the CUDA version the wheel was compiled against otherwise
print("built for CUDA", torch.version.cuda)
print("CUDA usable now:", torch.cuda.is_available())
print("GPUs visible:", torch.cuda.device_count())
