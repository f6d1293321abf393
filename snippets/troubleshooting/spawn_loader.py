import torch
from torch.utils.data import DataLoader, Dataset


# Spawned workers get the dataset and collate_fn by pickling, which stores
# a class or function by its name: define them at the top level of a module.
class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([i * i])


def flatten(samples):
    return torch.cat(samples).tolist()


def main():
    # "spawn" is the default on Windows and macOS; named here so that Linux
    # behaves the same.
    loader = DataLoader(
        Squares(),
        batch_size=4,
        num_workers=2,
        collate_fn=flatten,
        multiprocessing_context="spawn",
    )
    for batch in loader:
        print(batch)

    # a lambda (or a function or class defined inside another) has no such name
    loader = DataLoader(
        Squares(),
        batch_size=4,
        num_workers=2,
        collate_fn=lambda samples: torch.cat(samples).tolist(),
        multiprocessing_context="spawn",
    )
    try:
        next(iter(loader))
    except AttributeError as err:
        print("AttributeError:", err)


# A spawned worker starts a new Python that imports this file first. Without
# this guard it would run main() again and try to start workers of its own.
if __name__ == "__main__":
    main()
