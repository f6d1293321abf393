import torch

matmul = torch.backends.cuda.matmul
cudnn = torch.backends.cudnn
# What a fresh process allows a GPU to do differently from the CPU
print("TF32 in float32 matrix products:", matmul.allow_tf32)
print("TF32 in cuDNN convolutions:", cudnn.allow_tf32)
print("float16 products, reduced-precision reductions:",
      matmul.allow_fp16_reduced_precision_reduction)
print("bfloat16 products, reduced-precision reductions:",
      matmul.allow_bf16_reduced_precision_reduction)
print("cuDNN benchmark:", cudnn.benchmark)
print("cuDNN deterministic:", cudnn.deterministic)
