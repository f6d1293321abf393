import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")

torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 4), torch.randint(0, 3, (256,)))
loader = DataLoader(data, batch_size=64, shuffle=True)  # yields CPU tensors on every machine

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)  # move the model once,
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # then give its parameters to the optimizer
loss_fn = nn.CrossEntropyLoss()

for inputs, labels in loader:
    inputs, labels = inputs.to(device), labels.to(device)  # every batch; .to() returns the moved copy
    loss = loss_fn(model(inputs), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"{len(loader)} steps; parameters on {next(model.parameters()).device.type}, loss on {loss.device.type}")
