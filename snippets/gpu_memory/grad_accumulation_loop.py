import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
data = TensorDataset(torch.randn(1024, 20), torch.randn(1024, 1))
loader = DataLoader(data, batch_size=8, shuffle=True)  # the batch that fits
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()
accumulation_steps = 4  # 4 batches of 8 make one step, as a batch of 32 would

updates = 0
for i, (x, y) in enumerate(loader, start=1):
    x, y = x.to(device), y.to(device)
    loss = loss_fn(model(x), y) / accumulation_steps
    loss.backward()  # adds to the gradients of the batches before it
    if i % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
        updates += 1
print(f"{len(loader)} batches of 8, {updates} optimizer steps")
