import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
g = torch.Generator().manual_seed(0)
x = torch.randn(2048, 20, generator=g)
y = (x[:, :10].sum(dim=1) > 0).long()
# With a GPU, pinned batches let the copies below run asynchronously.
loader = DataLoader(
    TensorDataset(x, y),
    batch_size=64,
    shuffle=True,
    generator=g,
    pin_memory=device.type == "cuda",
)

model = nn.Linear(20, 2).to(device)
# a fixed start, so the printed losses are reproducible
nn.init.zeros_(model.weight)
nn.init.zeros_(model.bias)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(3):
    # the running sum stays on the device
    total = torch.zeros((), device=device)
    for xb, yb in loader:
        xb = xb.to(device, non_blocking=True)
        yb = yb.to(device, non_blocking=True)
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        # no .item() here: the GPU is never waited for inside the loop
        total += loss.detach()
    # one wait per epoch
    print(f"epoch {epoch + 1}: mean loss {total.item() / len(loader):.4f}")
