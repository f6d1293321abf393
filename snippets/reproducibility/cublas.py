import os

import torch

torch.use_deterministic_algorithms(True)
print("CUBLAS_WORKSPACE_CONFIG:", os.environ.get("CUBLAS_WORKSPACE_CONFIG"))
a = torch.randn(512, 512, device="cuda")
b = torch.randn(512, 512, device="cuda")
# torch 2.15: no error; releases before the change raised RuntimeError here
print("same product twice:", torch.equal(a @ b, a @ b))
torch.use_deterministic_algorithms(False)
