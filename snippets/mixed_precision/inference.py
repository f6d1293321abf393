import torch
from torch import nn

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1),
    nn.BatchNorm2d(32),
    nn.ReLU(),
    nn.Conv2d(32, 32, 3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Dropout(0.2),
    nn.Linear(32, 10),
)  # a trained model would be loaded here
images = torch.randn(16, 3, 64, 64)

model.eval()  # dropout off; batch norm uses its running statistics
with torch.inference_mode():
    reference = model(images)  # float32, for comparison

# Weights in bfloat16 (half the memory), weights and images in the
# channels-last layout, often the faster one for convolutions.
model.to(device, torch.bfloat16, memory_format=torch.channels_last)
batch = images.to(device, torch.bfloat16, memory_format=torch.channels_last)
with torch.inference_mode():
    logits = model(batch)

weight = model[0].weight
print(weight.dtype, weight.is_contiguous(memory_format=torch.channels_last))
print(
    logits.dtype,
    "| same classes as float32:",
    torch.equal(logits.argmax(1).cpu(), reference.argmax(1)),
)
print(
    "close to float32:",
    torch.allclose(logits.float().cpu(), reference, atol=0.02, rtol=0.02),
)
