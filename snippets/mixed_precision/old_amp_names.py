import textwrap
import warnings

import torch

# Older code uses the CUDA-only names: they still work, with a FutureWarning
# naming the new form.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.cuda.amp.GradScaler()
    torch.cuda.amp.autocast()
for warning in caught:
    if issubclass(warning.category, FutureWarning):
        print(textwrap.fill(str(warning.message), width=80))
