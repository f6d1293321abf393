import tempfile
from pathlib import Path

import torch
from torch import nn

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)


def build() -> nn.Module:
    return nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 10))


checkpoint = Path(tempfile.gettempdir()) / "meta-demo.pt"  # any path will do
torch.save(build().state_dict(), checkpoint)

# 1. The structure only: shapes and dtypes, no memory for the values.
with torch.device("meta"):
    model = build()
weight = model[0].weight
print(f"{weight.device}: {tuple(weight.shape)}, is_meta = {weight.is_meta}")

# 2a. Training from scratch: allocate (uninitialised) on the device, then let
# each layer initialise its own parameters.
model.to_empty(device=device)
for module in model.modules():
    if hasattr(module, "reset_parameters"):
        module.reset_parameters()
print("after to_empty: is_meta =", model[0].weight.is_meta)

# 2b. From a checkpoint: map the file instead of reading it all, and let the
# module take the loaded tensors as they are (assign=True), without a copy.
with torch.device("meta"):
    model = build()
state = torch.load(checkpoint, mmap=True, weights_only=True)
model.load_state_dict(state, assign=True)
same = model[0].weight.data_ptr() == state["0.weight"].data_ptr()
print("after assign: no copy =", same)
model.to(device)  # then create the optimizer
