import statistics
import time

import torch


def synchronize(device: torch.device) -> None:
    """Wait for all the work queued on `device`; the CPU queues nothing."""
    if device.type != "cpu":
        torch.accelerator.synchronize(device)


def time_it(fn, device: torch.device, repeat: int = 20) -> float:
    """Median seconds per fn() call, with the work it queued on `device`."""
    # warm-up: the first call pays for lazy initialisation and memory allocation
    fn()
    synchronize(device)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        # without this, on a GPU we would time only the queuing of the work
        synchronize(device)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = torch.randn(512, 512, device=device)
ms = time_it(lambda: a @ a, device) * 1e3
print(f"512x512 matmul on {device.type}: {ms:.3f} ms")
