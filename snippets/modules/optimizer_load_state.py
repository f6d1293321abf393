import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.Adam(model.parameters())
model(torch.ones(2, 3)).sum().backward()
optimizer.step()
saved = optimizer.state_dict()  # what a checkpoint stores: state on the CPU

# Later, on the target device: a new model, its new optimizer, the saved state.
restored = nn.Linear(3, 1, device="meta")
restored_optimizer = torch.optim.Adam(restored.parameters())
restored_optimizer.load_state_dict(saved)
state = restored_optimizer.state[restored.weight]
print(state["exp_avg"].device, state["exp_avg_sq"].device, state["step"].device)
