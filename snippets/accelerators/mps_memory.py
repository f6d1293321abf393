import torch

if torch.backends.mps.is_available():
    # At most half of what Metal recommends; the fraction must be a float.
    torch.mps.set_per_process_memory_fraction(0.5)
    x = torch.ones(1024, 1024, device="mps")  # 4 MiB of float32
    mib = 2**20
    print(f"tensors: {torch.mps.current_allocated_memory() / mib:.1f} MiB")
    # Metal's total for this process: cached blocks and MPSGraph included
    print(f"driver: {torch.mps.driver_allocated_memory() / mib:.1f} MiB")
    del x
    torch.mps.empty_cache()  # give the cached blocks back to the system
else:
    print("no MPS device here")
