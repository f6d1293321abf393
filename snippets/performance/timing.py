import statistics
import time

import torch


def synchronize(device: torch.device) -> None:
    """Wait until `device` has finished all the work queued on it; the CPU queues nothing."""
    if device.type != "cpu":
        torch.accelerator.synchronize(device)


def time_it(fn, device: torch.device, repeat: int = 20) -> float:
    """Median seconds per call of fn(), counting the work fn() queued on `device`, not just the call."""
    fn()  # warm-up: the first call pays for lazy initialisation and memory allocation
    synchronize(device)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        synchronize(device)  # without this, on a GPU we would time only the queuing of the work
        times.append(time.perf_counter() - start)
    return statistics.median(times)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = torch.randn(512, 512, device=device)
print(f"512x512 matmul on {device.type}: {time_it(lambda: a @ a, device) * 1e3:.3f} ms")
