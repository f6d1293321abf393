"""Which class each NCCL backend name builds, in a world of one process.

python snippets/multi_gpu/nccl_backend.py
"""

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn


def built_by(name: str) -> str:
    dist.init_process_group(name, store=dist.HashStore(), rank=0, world_size=1)
    try:
        backend = dist.group.WORLD._get_backend(torch.device("cuda"))
        return type(backend).__name__
    finally:
        dist.destroy_process_group()


for name in ("nccl", "nccl2", "nccl-legacy", "nccl-lazy"):
    try:
        print(f"{name:11} -> {built_by(name)}")
    except (RuntimeError, ValueError) as error:
        # no GPU: each class says so in its own words
        print(f"{name:11} -> {error}")
