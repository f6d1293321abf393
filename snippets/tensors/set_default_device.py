import torch

torch.set_default_device("meta")  # for the whole process, until changed
try:
    print(torch.get_default_device(), torch.arange(3).device)
finally:
    torch.set_default_device(None)  # back to the CPU
print(torch.get_default_device(), torch.arange(3).device)
