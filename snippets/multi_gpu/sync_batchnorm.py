# --8<-- [start:program]
"""BatchNorm statistics over the whole global batch: SyncBatchNorm.

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/sync_batchnorm.py
"""

import os
import sys

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def main() -> None:
    if "LOCAL_RANK" not in os.environ:
        sys.exit("start it with torchrun, as its docstring shows")
    local_rank = int(os.environ["LOCAL_RANK"])
    if torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()

    net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
    # every BatchNorm*d becomes a SyncBatchNorm; convert before wrapping
    net = nn.SyncBatchNorm.convert_sync_batchnorm(net).to(device)
    if rank == 0:
        print(type(net[1]).__name__)
    try:
        model = DistributedDataParallel(net)
        # each rank sees different images: 2 per rank, 2 * world in all
        model(torch.randn(2, 3, 16, 16, device=device) + rank)
        mean = net[1].running_mean
        copies = [torch.empty_like(mean) for _ in range(world)]
        dist.all_gather(copies, mean)
        if rank == 0:
            same = all(torch.equal(c, mean) for c in copies)
            print("running means identical on all ranks:", same)
        del model
    except ValueError as error:  # what a CPU process gets
        if rank == 0:
            print(error)
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
