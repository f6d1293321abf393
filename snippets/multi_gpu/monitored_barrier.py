# --8<-- [start:program]
"""Find the rank that never reaches a collective with monitored_barrier().

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/monitored_barrier.py
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
        dist.init_process_group("nccl", device_id=device)
    else:
        dist.init_process_group("gloo")
    rank = dist.get_rank()
    # monitored_barrier() needs Gloo: a Gloo group beside the training group
    monitor = dist.new_group(backend="gloo")

    if rank != 1:  # here rank 1 is stuck elsewhere and never arrives
        try:
            dist.monitored_barrier(monitor, timeout=timedelta(seconds=2))
        except RuntimeError as error:
            print(str(error).splitlines()[0])  # rank 0 names the missing rank
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
