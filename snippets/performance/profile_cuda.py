import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function

device = torch.device("cuda")
model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(64, 784, device=device)
y = torch.randint(0, 10, (64,), device=device)


def step() -> None:
    with record_function("forward"):
        loss = nn.functional.cross_entropy(model(x), y)
    with record_function("backward"):
        optimizer.zero_grad()
        loss.backward()
    with record_function("optimizer step"):
        optimizer.step()


step()
torch.cuda.synchronize()
# CUDA activity adds what each kernel took on the GPU itself
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(5):
        step()
    torch.cuda.synchronize()  # let the GPU finish inside the profiled region

print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=8))
