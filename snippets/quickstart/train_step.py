import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)

torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 4), torch.randint(0, 3, (256,)))
# yields CPU tensors on every machine
loader = DataLoader(data, batch_size=64, shuffle=True)

# Move the model once, then give its parameters to the optimizer.
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.CrossEntropyLoss()

for inputs, labels in loader:
    # every batch; .to() returns the moved copy
    inputs, labels = inputs.to(device), labels.to(device)
    loss = loss_fn(model(inputs), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

where = next(model.parameters()).device.type
print(f"{len(loader)} steps; parameters on {where}, loss on {loss.device.type}")
