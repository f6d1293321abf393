from torch import nn

# parameters are created on the device, no CPU copy first
layer = nn.Linear(3, 1, device="meta")
print(layer.weight.device, layer.bias.device)
print(layer.weight)
