import statistics
import time

import torch
from torch import nn


def synchronize(device: torch.device) -> None:
    if device.type != "cpu":
        torch.accelerator.synchronize(device)


def make_step(model: nn.Module, device: torch.device):
    """One SGD step of the MNIST page's model on a batch of 64 images."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    # MNIST-shaped: the content does not change the timing
    images = torch.randn(64, 1, 28, 28, device=device)
    labels = torch.randint(0, 10, (64,), device=device)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()

    return step


def seconds(fn, device: torch.device) -> float:
    start = time.perf_counter()
    fn()
    synchronize(device)
    return time.perf_counter() - start


accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
for name, wrap in (("eager", lambda m: m), ("compiled", torch.compile)):
    torch.manual_seed(0)
    model = wrap(nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10)).to(device))
    step = make_step(model, device)
    # for the compiled model, this call traces and compiles it
    first = seconds(step, device)
    median = statistics.median(seconds(step, device) for _ in range(200))
    print(
        f"{name:8} first step {first:7.3f} s, "
        f"then {median * 1e6:6.0f} µs per step on {device.type}"
    )
