import textwrap
import warnings

import torch

previous = torch.is_warn_always_enabled()
# otherwise PyTorch shows this warning once per process only
torch.set_warn_always(True)
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the initial setting: changes nothing
        torch.set_default_tensor_type(torch.FloatTensor)
finally:
    torch.set_warn_always(previous)
for warning in caught:
    first_sentence = str(warning.message).partition(". ")[0]
    message = f"{warning.category.__name__}: {first_sentence}"
    print(textwrap.fill(message, width=80))
