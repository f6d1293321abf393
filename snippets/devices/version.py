import torch

print("PyTorch", torch.__version__)
# None on a CPU-only build; otherwise the CUDA version the wheel was built with
print("built for CUDA", torch.version.cuda)
print("CUDA usable now:", torch.cuda.is_available())
print("GPUs visible:", torch.cuda.device_count())
