from torch import nn

layer = nn.Linear(3, 1, device="meta")  # parameters are created on the device, no CPU copy first
print(layer.weight.device, layer.bias.device)
print(layer.weight)
