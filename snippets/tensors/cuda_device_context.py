import torch

# selects the current GPU; it is not a default device
with torch.cuda.device(0):
    a = torch.ones(2, 3)
    # "cuda" without an index means the current GPU
    b = torch.ones(2, 3, device="cuda")
    print(a.get_device(), b.get_device(), torch.cuda.current_device())

with torch.device("cuda:0"):  # this one is a default device
    c = torch.ones(2, 3)
print(c.get_device(), (b + c).get_device())
