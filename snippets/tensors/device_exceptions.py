import torch

# stands in for a tensor on a GPU
x = torch.zeros(4, device="meta")
# the main exception: a 0-dim CPU tensor counts as a plain number
print("scalar:", (x * torch.tensor(2.0)).device)
# a CPU tensor of indices may index a tensor on another device
print("CPU indices:", x[torch.tensor([0, 2])].device)
# copy_ reads its source from any device
print("copy_:", x.copy_(torch.arange(4.0)).device)
