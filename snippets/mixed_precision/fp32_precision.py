import textwrap

import torch

# The per-backend switches: "tf32" allows TF32, "ieee" insists on full float32.
torch.backends.cuda.matmul.fp32_precision = "tf32"
torch.backends.cudnn.conv.fp32_precision = "tf32"
matmul = torch.backends.cuda.matmul.fp32_precision
conv = torch.backends.cudnn.conv.fp32_precision
print("matmul:", matmul, "| convolutions:", conv)

# Once they are used, the global question of the older API has no single
# answer any more...
try:
    torch.get_float32_matmul_precision()
except RuntimeError as err:
    first_part = str(err).split(",")[0]
    print(textwrap.fill(f"RuntimeError: {first_part}", width=80))
# ...until the global setter puts matrix products back under one setting.
torch.set_float32_matmul_precision("highest")
print("matmul precision:", torch.get_float32_matmul_precision())
