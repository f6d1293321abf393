import copy

import torch
from torch import nn

device = torch.device("cuda")
body = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64))
body = body.to(device)
eager_body = copy.deepcopy(body)  # the same weights, left eager, to compare

# A sample input with the shape, dtype and requires_grad of the real ones:
# the warm-up and the capture of the forward and the backward run on it.
sample = torch.randn(32, 64, device=device)
body = torch.cuda.make_graphed_callables(body, (sample,))

x = torch.randn(32, 64, device=device)
out = body(x)  # the forward: one replay
# Everything outside `body` stays eager: it may read values on the CPU,
# branch on them, or change shapes.
loss = out.square().mean()
if loss.item() > 0:
    loss.backward()  # body's backward: one more replay

eager_out = eager_body(x)
eager_out.square().mean().backward()
print("same output:", torch.allclose(out, eager_out, atol=1e-5))
pairs = zip(body.parameters(), eager_body.parameters(), strict=True)
print(
    "same gradients:",
    all(torch.allclose(p.grad, q.grad, atol=1e-5) for p, q in pairs),
)
