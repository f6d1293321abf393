import torch

# "high" lets float32 matrix products use TF32 on NVIDIA GPUs from Ampere
# (A100, RTX 30xx) on.
torch.set_float32_matmul_precision("high")
print("high:    TF32 for matmuls", torch.backends.cuda.matmul.allow_tf32)
# the default: full float32 for matrix products
torch.set_float32_matmul_precision("highest")
print("highest: TF32 for matmuls", torch.backends.cuda.matmul.allow_tf32)
# on unless switched off
print("TF32 for cuDNN convolutions:", torch.backends.cudnn.allow_tf32)
