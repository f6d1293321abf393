import torch
from torch import nn

# what a DataLoader over MNIST yields with batch_size=32
batch = torch.zeros(32, 1, 28, 28)

as_in_the_guide = nn.Linear(784, 10)
try:
    as_in_the_guide(batch)
except RuntimeError as error:
    print("RuntimeError:", error)

# Linear works on the last dimension and treats all others as a batch:
# 32 * 1 * 28 = 896 rows of 28.
flatten = nn.Flatten()  # keeps dimension 0, joins the rest: 1 * 28 * 28 = 784
print(flatten(batch).shape)
fixed = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
print(fixed(batch).shape)
