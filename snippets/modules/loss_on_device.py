import torch
from torch import nn

accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# Build the loss's tensors on the device (or call criterion.to(device) later).
criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0], device=device))
logits = torch.tensor(
    [[2.0, 0.0], [0.0, 2.0], [1.0, 1.0], [0.0, 0.0]], device=device
)
# int64 already: no .long() needed
target = torch.tensor([1, 0, 0, 1], device=device)

loss = criterion(logits, target)
print(f"{loss.item():.4f}", criterion.weight.device == logits.device)
