import tempfile
from pathlib import Path

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function

model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 784), torch.randint(0, 10, (64,))


def step() -> None:
    # each named range becomes a row of the table and a bar in the trace
    with record_function("forward"):
        loss = nn.functional.cross_entropy(model(x), y)
    with record_function("backward"):
        optimizer.zero_grad()
        loss.backward()
    with record_function("optimizer step"):
        optimizer.step()


step()  # warm-up, so one-off set-up work is not profiled
with profile(activities=[ProfilerActivity.CPU]) as prof:
    for _ in range(5):
        step()

print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=8))
trace = Path(tempfile.gettempdir()) / "step-trace.json"  # any path will do
prof.export_chrome_trace(str(trace))  # open it in https://ui.perfetto.dev
