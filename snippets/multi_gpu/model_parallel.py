import torch
from torch import nn


class TwoGPUNet(nn.Module):
    """A model split across two GPUs: the first layers live on cuda:0, the last one on cuda:1."""

    def __init__(self):
        super().__init__()
        self.first = nn.Sequential(nn.Linear(16, 64), nn.ReLU()).to("cuda:0")
        self.second = nn.Linear(64, 1).to("cuda:1")

    def forward(self, x):
        hidden = self.first(x.to("cuda:0"))
        return self.second(hidden.to("cuda:1"))  # move the activations to where the next layer is


model = TwoGPUNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # one optimizer holds parameters on both GPUs
x, target = torch.randn(8, 16), torch.randn(8, 1)

out = model(x)
loss = nn.functional.mse_loss(out, target.to(out.device))  # the target goes where the output is
loss.backward()  # autograd sends the gradients back across the two GPUs
optimizer.step()
print(out.device, model.first[0].weight.grad.device, model.second.weight.grad.device)
