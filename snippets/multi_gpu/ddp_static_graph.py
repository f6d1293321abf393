# --8<-- [start:program]
"""static_graph=True: the same parameters go unused in every iteration.

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/ddp_static_graph.py
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

    # aux goes unused in every iteration: no find_unused_parameters needed
    model = DistributedDataParallel(TwoHeads().to(device), static_graph=True)
    for _ in range(3):
        model(torch.randn(4, 8, device=device)).sum().backward()
    if rank == 0:
        print("static_graph=True: 3 steps done")

    # A graph that changes breaks the promise.
    try:
        model(torch.randn(4, 8, device=device), aux=True).sum().backward()
    except RuntimeError as error:
        if rank == 0:
            print(textwrap.fill(str(error), 72))
    del model
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
