import torch
from torch import nn

logits = torch.randn(4, 2, device="meta")
target = torch.tensor([1, 0, 0, 1], device="meta")

plain = nn.CrossEntropyLoss()  # holds no tensors: works wherever its inputs are
print(list(plain.buffers()), plain(logits, target).device)

# the weight is a buffer, on the CPU
weighted = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
print(dict(weighted.named_buffers()))
try:
    weighted(logits, target)
except RuntimeError as err:
    print("RuntimeError:", err)

weighted.to("meta")  # a loss is a module: move it like one
print(weighted.weight.device, weighted(logits, target).device)
