import torch
from torch import nn

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
# full float32 in matrix products, no TF32 (the default)
torch.set_float32_matmul_precision("highest")

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
x = torch.randn(32, 64)
with torch.no_grad():
    expected = model(x)  # the reference, on the CPU
    actual = model.to(device)(x.to(device)).cpu()

# float32 on two devices: equal to about six digits, rarely bit for bit
torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5)
print("the device's output matches the CPU's")
