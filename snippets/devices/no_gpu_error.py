import textwrap

import torch

# Without a usable GPU, asking for the current one fails; print why instead of
# a traceback.
try:
    print(torch.cuda.current_device())
except (RuntimeError, AssertionError) as err:
    # AssertionError comes from a CPU-only build of PyTorch
    print(textwrap.fill(f"{type(err).__name__}: {err}", width=80))
