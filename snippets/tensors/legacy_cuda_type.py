import warnings

import torch

previous = torch.is_warn_always_enabled()
torch.set_warn_always(True)  # otherwise PyTorch shows this warning once per process only
try:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            a = torch.cuda.FloatTensor(2, 3)  # uninitialised memory on the current GPU, if there is one
        except RuntimeError as err:
            print("RuntimeError:", err)
finally:
    torch.set_warn_always(previous)
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message).partition('. ')[0]}")
