import torch
from torch import nn

model = nn.Linear(8, 4)  # parameters stay float32
x = torch.randn(16, 8)
target = torch.randint(0, 4, (16,))

with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    logits = model(x)  # a matmul: autocast runs it in bfloat16
    # a loss: autocast keeps it in float32
    loss = nn.functional.cross_entropy(logits, target)
    print("input", x.dtype, "| weight", model.weight.dtype)
    print("logits", logits.dtype, "| loss", loss.dtype)

loss.backward()  # outside the context, as for any backward pass
print("gradient", model.weight.grad.dtype)
