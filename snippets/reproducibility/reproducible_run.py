# --8<-- [start:program]
"""Two short training runs with one seed: the same weights, bit for bit."""

import random

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, get_worker_info

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)


class Jittered(Dataset):
    """Fixed points, with random jitter each time a sample is read."""

    def __init__(self) -> None:
        points = torch.Generator().manual_seed(1)  # the data never changes
        self.x = torch.randn(256, 8, generator=points)
        self.y = (self.x.sum(dim=1) > 0).long()
        self.rng = random.Random()  # a generator PyTorch does not know

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        noise = 0.1 * torch.randn(8)  # PyTorch seeds this in each worker
        scale = self.rng.uniform(0.9, 1.1)  # seed_worker seeds this one
        return (self.x[i] + noise) * scale, self.y[i]


def seed_worker(worker_id: int) -> None:
    """Seed the dataset's own generator from the worker's seed."""
    info = get_worker_info()
    info.dataset.rng.seed(info.seed)


def train(seed: int) -> torch.Tensor:
    torch.manual_seed(seed)  # the initial weights
    loader = DataLoader(
        Jittered(),
        batch_size=32,
        shuffle=True,
        num_workers=2,
        worker_init_fn=seed_worker,
        # the shuffle and the workers' seeds come from this generator
        generator=torch.Generator().manual_seed(seed),
    )
    model = nn.Linear(8, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = nn.functional.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.weight.detach().cpu()


def main() -> None:
    torch.use_deterministic_algorithms(True)
    first, again, other = train(0), train(0), train(1)
    print("same seed, same weights:", torch.equal(first, again))
    print("another seed, other weights:", not torch.equal(first, other))


# --8<-- [end:program]


if __name__ == "__main__":
    main()
