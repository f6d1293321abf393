import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
loss_fn = nn.MSELoss()  # a mean over the samples of a batch
inputs, targets = torch.randn(32, 20), torch.randn(32, 1)


def take_gradients() -> list[torch.Tensor]:
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    return grads


# The gradients of one batch of 32...
loss_fn(model(inputs), targets).backward()
full_batch = take_gradients()

# ...and of the same 32 samples as 4 micro-batches of 8. backward() adds to
# .grad; dividing each loss by 4 turns the sum of 4 means into one mean.
steps = 4
for x, y in zip(inputs.chunk(steps), targets.chunk(steps), strict=True):
    loss = loss_fn(model(x), y) / steps
    loss.backward()
# Here a training loop calls optimizer.step() and optimizer.zero_grad().
accumulated = take_gradients()

pairs = zip(full_batch, accumulated, strict=True)
print("same gradients:", all(torch.allclose(a, b, atol=1e-6) for a, b in pairs))
