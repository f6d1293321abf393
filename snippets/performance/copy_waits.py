import time
import warnings

import torch

# 4 MiB in ordinary (pageable) host memory, as a DataLoader returns it
batch = torch.randn(1024, 1024)
pinned = batch.pin_memory()
work = torch.randn(4096, 4096, device="cuda")


def how_it_waits(copy) -> str:
    """Does copy() wait for the GPU work queued before it?

    And does the sync debug mode report it?
    """
    copy()  # warm-up
    torch.cuda.synchronize()
    for _ in range(20):
        work @ work  # queue some GPU work for the copy to wait for, or not
    torch.cuda.set_sync_debug_mode("warn")
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copy()
    returned = time.perf_counter() - start
    torch.cuda.set_sync_debug_mode("default")
    torch.cuda.synchronize()
    finished = time.perf_counter() - start  # when the queued work was done
    waits = "waits" if returned > finished / 2 else "returns at once"
    reported = any("synchroniz" in str(w.message) for w in caught)
    return f"{waits}, {'reported' if reported else 'not reported'}"


copies = {
    "batch.to('cuda')": lambda: batch.to("cuda"),
    "pinned.to('cuda')": lambda: pinned.to("cuda"),
    "pinned.to('cuda', non_blocking=True)": (
        lambda: pinned.to("cuda", non_blocking=True)
    ),
    "batch.to('cuda', non_blocking=True)": (
        lambda: batch.to("cuda", non_blocking=True)
    ),
}
for label, copy in copies.items():
    print(f"{label:<37} {how_it_waits(copy)}")
