import torch
from torch import nn

model = nn.Linear(4, 4)
x = torch.randn(2, 4)

with torch.no_grad():
    a = model(x)
with torch.inference_mode():
    b = model(x)
print("requires grad:", a.requires_grad, b.requires_grad)
print("inference tensor:", a.is_inference(), b.is_inference())

# Outside the context, a no_grad result is an ordinary tensor...
model(a).sum().backward()
# ...but an inference tensor cannot take part in autograd...
try:
    model(b).sum().backward()
except RuntimeError as err:
    print(str(err).split(". ")[0])
# ...nor be changed in place.
try:
    b.add_(1)
except RuntimeError as err:
    print(str(err).split(".")[0])
model(b.clone()).sum().backward()  # a clone is an ordinary tensor again
