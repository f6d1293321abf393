# --8<-- [start:program]
"""Time a large and a small CPU workload with 1, 2, 4, ... threads."""

import statistics
import time

import torch
from torch import nn


def thread_counts() -> list[int]:
    """1, 2, 4, ... and the number of threads PyTorch chose at start."""
    most = torch.get_num_threads()
    counts = [1]
    while counts[-1] * 2 < most:
        counts.append(counts[-1] * 2)
    if most > 1:
        counts.append(most)
    return counts


def milliseconds(fn, threads: int, budget: float = 1.0) -> float:
    """Median time of one fn() call with this many intra-op threads."""
    torch.set_num_threads(threads)
    fn()  # warm-up
    times = []
    while sum(times) < budget or len(times) < 5:
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    # one large operation: a product of two 1024 x 1024 matrices
    a = torch.randn(1024, 1024)
    # many small ones: a training step of the MNIST page's model, batch 64
    model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))

    def step() -> None:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    print("threads  1024x1024 matmul  training step")
    for n in thread_counts():
        matmul, train = milliseconds(lambda: a @ a, n), milliseconds(step, n)
        print(f"{n:7}  {matmul:13.2f} ms  {train:10.3f} ms")


# --8<-- [end:program]


if __name__ == "__main__":
    main()
