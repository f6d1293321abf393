# --8<-- [start:program]
"""A model with a branch that forward() does not use, under DDP.

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/ddp_unused.py
"""

import os
import sys
import textwrap

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class TwoHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Linear(8, 8)
        self.main = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 1)  # only used when asked for

    def forward(self, x: torch.Tensor, aux: bool = False) -> torch.Tensor:
        h = torch.relu(self.trunk(x))
        return self.aux(h) if aux else self.main(h)


def train(model: nn.Module, device: torch.device) -> None:
    for _ in range(2):
        model(torch.randn(4, 8, device=device)).sum().backward()


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
    rank = dist.get_rank()

    model = DistributedDataParallel(TwoHeads().to(device))
    try:
        train(model, device)
    except RuntimeError as error:
        # the second forward() finds the first step's reduction unfinished
        if rank == 0:
            first, second, *_ = str(error).split(". ")
            print(textwrap.fill(f"{first}. {second}.", 72))
            for line in str(error).splitlines():
                if line.startswith("Parameter"):  # which ones had no grad
                    print(line)
    del model

    model = DistributedDataParallel(
        TwoHeads().to(device), find_unused_parameters=True
    )
    train(model, device)
    if rank == 0:
        print("with find_unused_parameters=True: 2 steps done")
    del model
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
