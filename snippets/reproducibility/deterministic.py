import textwrap
import warnings

import torch
from torch import nn

x = torch.randn(1, 1, 4)
pooled, indices = nn.functional.max_pool1d(x, 2, return_indices=True)
unpool = nn.MaxUnpool1d(2)

torch.use_deterministic_algorithms(True)
try:
    unpool(pooled, indices)
except RuntimeError as error:
    # the message names the operation that has no deterministic version
    print(textwrap.fill(str(error).split(", but")[0], width=80))

# warn_only=True: a warning instead of the error, and the result
torch.use_deterministic_algorithms(True, warn_only=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    unpooled = unpool(pooled, indices)
print("warnings:", len(caught), "| result:", tuple(unpooled.shape))

torch.use_deterministic_algorithms(False)  # the default again
print("deterministic:", torch.are_deterministic_algorithms_enabled())
