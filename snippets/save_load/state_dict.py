import tempfile
from pathlib import Path

import torch
from torch import nn

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
checkpoint = Path(tempfile.gettempdir()) / "linear-state.pt"  # any path will do

model = nn.Linear(4, 2).to(device)
# the tensors only, each recorded with the device it was on
torch.save(model.state_dict(), checkpoint)

# Later, perhaps elsewhere: build the model, then copy the saved values into it.
restored = nn.Linear(4, 2).to(device)
state = torch.load(checkpoint, map_location=device)
print(list(state), restored.load_state_dict(state))
pairs = zip(model.parameters(), restored.parameters(), strict=True)
print(all(torch.equal(a, b) for a, b in pairs))
