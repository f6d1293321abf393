# --8<-- [start:program]
"""One default group for CPU and GPU tensors: Gloo carries one, NCCL the other.

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/mixed_group.py
"""

import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn


def main() -> None:
    if "LOCAL_RANK" not in os.environ:
        sys.exit("start it with torchrun, as its docstring shows")
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group("cpu:gloo,cuda:nccl", device_id=device)
    else:
        # without GPUs "cuda:nccl" fails at once: keep the CPU half
        device = torch.device("cpu")
        dist.init_process_group("cpu:gloo")
    rank = dist.get_rank()

    on_device = torch.tensor([rank + 1.0], device=device)
    on_cpu = torch.tensor([rank + 1.0])
    dist.all_reduce(on_device)  # NCCL where there are GPUs
    dist.all_reduce(on_cpu)  # Gloo, through the same group
    # monitored_barrier needs a CPU backend, and this group has one
    dist.monitored_barrier(timeout=timedelta(seconds=30))
    if rank == 0:
        sums = f"{on_device.item()} on the device, {on_cpu.item()} on the CPU"
        print("sums:", sums)
        print("monitored_barrier passed on the default group")
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
