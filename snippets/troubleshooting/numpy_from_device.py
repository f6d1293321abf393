import torch

x = torch.ones(3, device="meta")  # stands in for a GPU tensor: its data is not in CPU memory
try:
    x.numpy()
except TypeError as err:
    print("TypeError:", err)

y = torch.ones(3, requires_grad=True) * 2  # part of a computation graph
try:
    y.numpy()
except RuntimeError as err:
    print("RuntimeError:", err)

# The fix for both, on any device: leave the graph, copy to the CPU, then convert.
print(y.detach().cpu().numpy())
