import torch
from torch import nn

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)

torch.manual_seed(0)
# Built on the CPU, the layer is initialised by the CPU generator and then
# moved: the same starting weights on every device.
model = nn.Linear(4, 2).to(device)
# Inputs the same way: drawn on the CPU, then moved.
x = torch.randn(2, 4).to(device)
print(model.weight.detach().cpu())
print(x.cpu())
