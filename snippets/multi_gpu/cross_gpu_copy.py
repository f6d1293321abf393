import torch

x = torch.ones(2, 3, device="cuda:0")
y = torch.rand(2, 3, device="cuda:1")

# x + y would raise: the operands are on two different GPUs.
# Copy x to y's GPU, then add there.
z = x.to(y.device)  # the same as x.to("cuda:1") or x.cuda(1)
print(z.device, (z + y).device)
print(x.device)  # the original stays on cuda:0: .to() returned a copy
