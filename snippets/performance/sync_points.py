import warnings

import torch

x = torch.randn(256, 256, device="cuda")
pinned = torch.randn(256, 256).pin_memory()


def synchronizations(step) -> int:
    """How many times step() makes Python wait for the GPU.

    CUDA's sync debug mode reports each wait as a warning.
    """
    step()  # warm-up, so one-off set-up work is not counted
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            step()
    finally:
        torch.cuda.set_sync_debug_mode(previous)
    return sum("synchroniz" in str(w.message) for w in caught)


steps = {
    "x @ x": lambda: x @ x,
    "x.sum()": lambda: x.sum(),
    "pinned.to('cuda', non_blocking=True)": (
        lambda: pinned.to("cuda", non_blocking=True)
    ),
    "x.sum().item()": lambda: x.sum().item(),
    "x.cpu()": lambda: x.cpu(),
    "x[0].tolist()": lambda: x[0].tolist(),
    "str(x), as print(x) does": lambda: str(x),
    "bool((x > 0).any()), as `if` does": lambda: bool((x > 0).any()),
}
for label, step in steps.items():
    waits = synchronizations(step)
    print(f"{label:<37} {'waits' if waits else 'returns at once'}")
