import tempfile
from pathlib import Path

import torch
from torch import nn

checkpoint = Path(tempfile.gettempdir()) / "linear-on-cpu.pt"
torch.save(nn.Linear(4, 2).state_dict(), checkpoint)  # saved from the CPU

# "meta" stands in for a second device here, so that the tensors visibly move
# on any machine.
for where in ["cpu", torch.device("meta"), {"cpu": "meta"}]:
    state = torch.load(checkpoint, map_location=where)
    print(f"map_location={where!r}: weight on {state['weight'].device}")
