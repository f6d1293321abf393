import torch

print("PyTorch", torch.__version__)
# None on CPU-only and ROCm builds; otherwise the CUDA version the wheel was
# built with
print("built for CUDA", torch.version.cuda)
print("CUDA usable now:", torch.cuda.is_available())
print("GPUs visible:", torch.cuda.device_count())
