import os

import torch

# Misspelt attributes fail loudly, so they are easy to fix ...
try:
    os.environment["CUDA_VISIBLE_DEVICES"] = "0,1"
except AttributeError as err:
    print(err)
try:
    torch.nn.Dataparallel(torch.nn.Linear(2, 2))
except AttributeError as err:
    print(err)
# ... the right names are os.environ and torch.nn.DataParallel.
print(type(os.environ).__name__, torch.nn.DataParallel.__name__)
