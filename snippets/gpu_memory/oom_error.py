import textwrap

import torch

# One class for every device: torch.cuda.OutOfMemoryError is an alias for it.
print(torch.cuda.OutOfMemoryError is torch.OutOfMemoryError)
print(issubclass(torch.OutOfMemoryError, RuntimeError))

# Main memory running out is reported differently: a plain RuntimeError.
try:
    torch.empty(2**50, dtype=torch.uint8)  # one pebibyte
except torch.OutOfMemoryError:
    print("OutOfMemoryError")
except RuntimeError as err:
    message = str(err).split("DefaultCPUAllocator: ")[1]
    print(textwrap.fill(f"RuntimeError: {message}", width=80))
