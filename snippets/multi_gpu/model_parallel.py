import torch
from torch import nn


class TwoGPUNet(nn.Module):
    """A model split across two GPUs.

    The first layers live on cuda:0, the last one on cuda:1.
    """

    def __init__(self):
        super().__init__()
        self.first = nn.Sequential(nn.Linear(16, 64), nn.ReLU()).to("cuda:0")
        self.second = nn.Linear(64, 1).to("cuda:1")

    def forward(self, x):
        hidden = self.first(x.to("cuda:0"))
        # move the activations to where the next layer is
        return self.second(hidden.to("cuda:1"))


model = TwoGPUNet()
# one optimizer holds parameters on both GPUs
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(8, 16), torch.randn(8, 1)

out = model(x)
# the target goes where the output is
loss = nn.functional.mse_loss(out, target.to(out.device))
loss.backward()  # autograd sends the gradients back across the two GPUs
optimizer.step()
grads = model.first[0].weight.grad, model.second.weight.grad
print(out.device, grads[0].device, grads[1].device)
