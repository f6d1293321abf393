import torch

# The per-backend switches: "tf32" allows TF32, "ieee" insists on full float32.
torch.backends.cuda.matmul.fp32_precision = "tf32"
torch.backends.cudnn.conv.fp32_precision = "tf32"
print("matmul:", torch.backends.cuda.matmul.fp32_precision, "| convolutions:", torch.backends.cudnn.conv.fp32_precision)

# Once they are used, the global question of the older API has no single answer any more...
try:
    torch.get_float32_matmul_precision()
except RuntimeError as err:
    print("RuntimeError:", str(err).split(",")[0])
# ...until the global setter puts matrix products back under one setting.
torch.set_float32_matmul_precision("highest")
print("matmul precision:", torch.get_float32_matmul_precision())
