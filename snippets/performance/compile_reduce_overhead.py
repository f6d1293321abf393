import torch
from torch import nn

device = torch.device("cuda")
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
model = model.to(device).eval()
compiled = torch.compile(model, mode="reduce-overhead")

x = torch.randn(32, 64, device=device)
with torch.no_grad():
    for _ in range(3):  # the first calls compile and record, later ones replay
        torch.compiler.cudagraph_mark_step_begin()  # a new iteration starts
        out = compiled(x)
    kept = out.clone()  # outputs live in the graphs' memory: clone to keep
    eager = model(x)
print("close to eager:", torch.allclose(kept, eager, rtol=1e-4, atol=1e-5))
