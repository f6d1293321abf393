import torch
from torch import nn

# Choose a device once, then move the model and every batch to it.
device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
model = nn.Linear(4, 2).to(device)
batch = torch.randn(8, 4).to(device)

print(model(batch).shape, "on", device.type)
