import tempfile
from pathlib import Path

import torch
from torch import nn

snapshot = Path(tempfile.gettempdir()) / "snapshot.pickle"  # any path will do

# From here on, every allocation and free is recorded with the stack that
# made it (the last 100 000 events are kept).
torch.cuda.memory._record_memory_history(max_entries=100_000)

model = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 10))
model.to("cuda")
optimizer = torch.optim.AdamW(model.parameters())
for _ in range(3):
    batch = torch.randn(512, 4096, device="cuda")
    model(batch).sum().backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

torch.cuda.memory._dump_snapshot(str(snapshot))
torch.cuda.memory._record_memory_history(enabled=None)  # stop recording
print(f"snapshot: {snapshot}")
print(torch.cuda.memory_summary(abbreviated=True))
