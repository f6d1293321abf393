import textwrap

import torch
from torch.utils.data import DataLoader, Dataset


class SquaresOnTheGpu(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        # the mistake: CUDA inside a worker process
        return torch.tensor([i * i], device="cuda")


# the main process asks CUDA before the workers start
print("GPU usable:", torch.cuda.is_available())
# "fork" is Linux's default start method up to Python 3.13; named here so the
# example behaves the same later.
loader = DataLoader(
    SquaresOnTheGpu(),
    batch_size=4,
    num_workers=2,
    multiprocessing_context="fork",
)
try:
    next(iter(loader))
except RuntimeError as err:
    print(textwrap.fill(str(err).splitlines()[-1], width=80))
