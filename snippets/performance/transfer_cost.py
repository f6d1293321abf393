import time

import torch


def gib_per_s(copy, nbytes: int, repeat: int = 10) -> float:
    copy()  # warm-up
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeat):
        copy()
    torch.cuda.synchronize()
    return nbytes * repeat / (time.perf_counter() - start) / 2**30


# 64 MiB of float32 in ordinary (pageable) host memory
host = torch.randn(64 * 2**20 // 4)
pinned = host.pin_memory()  # the same data in page-locked memory
on_gpu = host.cuda()
nbytes = host.numel() * host.element_size()
rate = gib_per_s(lambda: host.to("cuda"), nbytes)
print(f"pageable host -> GPU: {rate:8.1f} GiB/s")
rate = gib_per_s(lambda: pinned.to("cuda", non_blocking=True), nbytes)
print(f"pinned host   -> GPU: {rate:8.1f} GiB/s")
rate = gib_per_s(lambda: on_gpu.clone(), nbytes)
print(f"GPU -> GPU (clone):   {rate:8.1f} GiB/s")
