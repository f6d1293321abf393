import torch
from torch import nn

model = nn.Linear(3, 1)
# built too early, on purpose
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
held = optimizer.param_groups[0]["params"]

model.to(torch.float64)  # converted in place: the Parameter objects are kept
same = all(p is q for p, q in zip(held, model.parameters(), strict=True))
print(same, held[0].dtype)

model.to("meta")  # this conversion has to create new Parameter objects
same = all(p is q for p, q in zip(held, model.parameters(), strict=True))
print(same, held[0].device)
