import torch

total = torch.cuda.get_device_properties(0).total_memory
try:
    torch.empty(2 * total, dtype=torch.uint8, device="cuda")  # twice what the card has
except torch.OutOfMemoryError as err:  # a subclass of RuntimeError: the process can go on
    print(err)
print(torch.ones(3, device="cuda").sum().item())  # memory for smaller tensors is still there
