import torch
from torch.utils.data import DataLoader, Dataset


class SquaresOnTheGpu(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([i * i], device="cuda")  # the mistake: CUDA inside a worker process


print("GPU usable:", torch.cuda.is_available())  # the main process asks CUDA before the workers start
# "fork" is Linux's default start method up to Python 3.13; named here so the example behaves the same later.
loader = DataLoader(SquaresOnTheGpu(), batch_size=4, num_workers=2, multiprocessing_context="fork")
try:
    next(iter(loader))
except RuntimeError as err:
    print(str(err).splitlines()[-1])
