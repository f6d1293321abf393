import torch
from torch import nn

device = torch.device("cuda")
model = nn.Linear(3, 1).to(device)
batch = torch.rand(2, 3)  # as a DataLoader yields it: on the CPU
try:
    model(batch)
except RuntimeError as err:
    print("RuntimeError:", err)

# the fix: move the batch to the model's device
print(model(batch.to(device)).device)
