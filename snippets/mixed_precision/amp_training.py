import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# float16 needs its loss scaled so that small gradients survive;
# bfloat16 (the CPU's choice) does not.
dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
scaler = torch.amp.GradScaler(device.type, enabled=dtype == torch.float16)

torch.manual_seed(0)
x = torch.randn(512, 20, device=device)
y = (x[:, :10].sum(dim=1) > 0).long()
# float32 weights
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

losses = []
for _ in range(50):
    optimizer.zero_grad()
    # only the forward pass and the loss
    with torch.autocast(device_type=device.type, dtype=dtype):
        loss = nn.functional.cross_entropy(model(x), y)
    # multiplies the loss first, when the scaler is enabled
    scaler.scale(loss).backward()
    # unscales the gradients; skips the step if any is inf or NaN
    scaler.step(optimizer)
    scaler.update()  # adjusts the scale for the next step
    # no .item(): it would wait for the GPU every step
    losses.append(loss.detach())

scaling = "on" if scaler.is_enabled() else "off"
print(f"{dtype} on {device.type}, loss scaling {scaling}")
print("loss went down:", bool(losses[-1] < losses[0]))
