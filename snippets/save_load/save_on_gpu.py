import tempfile
from pathlib import Path

import torch
from torch import nn

checkpoint = Path(tempfile.gettempdir()) / "linear-on-gpu.pt"
torch.save(nn.Linear(4, 2).to("cuda").state_dict(), checkpoint)

# without map_location: back onto the GPU it came from
print(torch.load(checkpoint)["weight"].device)
# with it: wherever you say
print(torch.load(checkpoint, map_location="cpu")["weight"].device)
