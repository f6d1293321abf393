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


host = torch.randn(64 * 2**20 // 4)  # 64 MiB of float32 in ordinary (pageable) host memory
pinned = host.pin_memory()  # the same data in page-locked memory
on_gpu = host.cuda()
nbytes = host.numel() * host.element_size()
print(f"pageable host -> GPU: {gib_per_s(lambda: host.to('cuda'), nbytes):8.1f} GiB/s")
print(f"pinned host   -> GPU: {gib_per_s(lambda: pinned.to('cuda', non_blocking=True), nbytes):8.1f} GiB/s")
print(f"GPU -> GPU (clone):   {gib_per_s(lambda: on_gpu.clone(), nbytes):8.1f} GiB/s")
