import torch

# Counters read 0 while CUDA has not been started, which is always the case
# without a GPU...
allocated, reserved = (
    torch.cuda.memory_allocated(),
    torch.cuda.memory_reserved(),
)
print("allocated", allocated, "reserved", reserved)
print("accelerator allocated", torch.accelerator.memory_allocated())
torch.cuda.empty_cache()  # ...and emptying the cache does nothing.

# What needs the driver raises.
for ask in (torch.cuda.mem_get_info, torch.cuda.reset_peak_memory_stats):
    try:
        ask()
    except RuntimeError as err:
        print(f"{ask.__name__}: {str(err).split('.')[0]}")
