import torch

# A ROCm build answers through the same torch.cuda functions and the same
# "cuda" device type; only torch.version.hip tells it apart (None on CUDA and
# CPU-only builds).
if torch.version.hip:
    print("ROCm build, HIP", torch.version.hip)
elif torch.version.cuda:
    print("CUDA build")
else:
    print("CPU-only build")
print("GPU usable through torch.cuda:", torch.cuda.is_available())
