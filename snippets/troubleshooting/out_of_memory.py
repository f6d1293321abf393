import torch

total = torch.cuda.get_device_properties(0).total_memory
try:
    # twice what the card has
    torch.empty(2 * total, dtype=torch.uint8, device="cuda")
except torch.OutOfMemoryError as err:
    # a subclass of RuntimeError: the process can go on
    print(err)
# memory for smaller tensors is still there
print(torch.ones(3, device="cuda").sum().item())
