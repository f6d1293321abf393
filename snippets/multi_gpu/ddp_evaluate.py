# --8<-- [start:program]
"""An exact metric under DDP: each rank evaluates its share, then all-reduce.

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/ddp_evaluate.py
"""

import os
import sys

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import (
    DataLoader,
    DistributedSampler,
    Subset,
    TensorDataset,
)


@torch.no_grad()
def evaluate(
    model: nn.Module, loader: DataLoader, device: torch.device
) -> tuple[int, int]:
    """Correct predictions and samples seen, summed over all ranks."""
    totals = torch.zeros(2, dtype=torch.long, device=device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        totals[0] += (model(x).argmax(dim=1) == y).sum()
        totals[1] += len(y)
    dist.all_reduce(totals)  # sum over ranks, after the loop
    correct, seen = totals.tolist()
    return correct, seen


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

    torch.manual_seed(0)  # the same model and data on every rank
    model = DistributedDataParallel(nn.Linear(4, 3).to(device))
    data = TensorDataset(torch.randn(11, 4), torch.randint(0, 3, (11,)))

    model.eval()
    net = model.module  # the plain model: its forward waits for no other rank
    padded = DistributedSampler(data, shuffle=False)
    dropped = DistributedSampler(data, shuffle=False, drop_last=True)
    # every world-th sample from this rank's index on: no padding, no loss
    share = Subset(data, range(rank, len(data), world))
    loaders = {
        "DistributedSampler": DataLoader(data, batch_size=4, sampler=padded),
        "drop_last=True": DataLoader(data, batch_size=4, sampler=dropped),
        "a share per rank": DataLoader(share, batch_size=4),
    }
    if rank == 0:
        print(f"{len(data)} samples, {world} ranks")
    for name, loader in loaders.items():
        correct, seen = evaluate(net, loader, device)
        if rank == 0:
            print(f"{name:<18} {correct}/{seen} = {correct / seen:.3f}")
    del model, net
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
