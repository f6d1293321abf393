import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.arange(6.0, device=device)

# Already on the target device (and already the right dtype): .to() hands back
# the very same tensor.
print(x.to(device) is x)
# A real change, or copy=True, makes a new tensor.
print(x.to(device, copy=True) is x, x.to(torch.float64) is x)

# A module is moved in place, and .to() returns the module itself, so
# reassigning is optional.
model = torch.nn.Linear(2, 2)
print(model.to(device) is model)
