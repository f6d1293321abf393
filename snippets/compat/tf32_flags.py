import torch

# The older switches: True allows TF32, False insists on full float32.
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
matmul = torch.backends.cuda.matmul.allow_tf32
conv = torch.backends.cudnn.allow_tf32
print("matmul:", matmul, "| convolutions:", conv)
