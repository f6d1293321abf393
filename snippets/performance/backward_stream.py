import torch
from torch import nn

device = torch.accelerator.current_accelerator()
torch.manual_seed(0)
model = nn.Linear(512, 512, device=device)
x = torch.randn(64, 512, device=device)

side = torch.Stream(device)
side.wait_stream(torch.accelerator.current_stream())  # model and x are ready
with side:
    loss = model(x).square().mean()  # the forward ops run on `side` ...
    loss.backward()  # ... so their backward ops run on `side` too
    norm = model.weight.grad.norm()  # safe: the stream backward() ran on

# Any other stream must wait before it reads the gradients.
torch.accelerator.current_stream().wait_stream(side)
on_side = model.weight.grad.clone()

model.zero_grad()
model(x).square().mean().backward()  # the same step on the default stream
print("same gradients:", torch.allclose(on_side, model.weight.grad))
print("norm computed on side:", torch.allclose(norm, on_side.norm()))
