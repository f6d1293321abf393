from torch import nn

layer = nn.Linear(3, 1)
moved = [p.to("meta") for p in layer.parameters()]  # new tensors, one per parameter...
print(moved[0].device, layer.weight.device)  # ...while the layer keeps its own, on the CPU
