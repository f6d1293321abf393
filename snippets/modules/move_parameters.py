from torch import nn

layer = nn.Linear(3, 1)
# new tensors, one per parameter...
moved = [p.to("meta") for p in layer.parameters()]
# ...while the layer keeps its own, on the CPU
print(moved[0].device, layer.weight.device)
