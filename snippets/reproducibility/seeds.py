import torch

# One call seeds the CPU generator and the generator of every GPU.
torch.manual_seed(0)
first = torch.rand(3)
torch.manual_seed(0)
again = torch.rand(3)
print(first)
print("same numbers again:", torch.equal(first, again))
print("seed in use:", torch.initial_seed())
