import torch

x = torch.tensor([1, 2, 3])
g = x.cuda()  # the current GPU; x stays on the CPU
print(x.device, g.device, x.is_cuda, g.is_cuda)
print(x.cuda(0).device, x.cuda(device=0).device, x.to("cuda:0").device)
print(g.cpu(), g.to("cpu").device)
# Already there: no copy, the very same tensor comes back.
print(g.cuda() is g, g.cuda(0) is g, g.to("cuda:0") is g)
