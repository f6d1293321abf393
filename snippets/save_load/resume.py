import tempfile
from pathlib import Path

import torch
from torch import nn

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
checkpoint = Path(tempfile.gettempdir()) / "linear-training.pt"

model = nn.Linear(4, 2).to(device)
optimizer = torch.optim.Adam(model.parameters())
model(torch.randn(8, 4, device=device)).sum().backward()
optimizer.step()  # Adam now holds running averages for each parameter
torch.save(
    {
        "epoch": 1,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
    },
    checkpoint,
)

# Resuming, here or on another machine: model on its device first, then a new
# optimizer, then the state.
saved = torch.load(checkpoint, map_location="cpu")
model = nn.Linear(4, 2).to(device)
# copies the values into the parameters, on the parameters' device
model.load_state_dict(saved["model"])
optimizer = torch.optim.Adam(model.parameters())
# moves each state tensor to its parameter's device
optimizer.load_state_dict(saved["optimizer"])
start_epoch = saved["epoch"] + 1

exp_avg = optimizer.state[model.weight]["exp_avg"]
print(start_epoch, exp_avg.device == model.weight.device)
