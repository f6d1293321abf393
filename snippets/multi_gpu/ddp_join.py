# --8<-- [start:program]
"""Training under DDP when the ranks have different numbers of batches: Join.

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/ddp_join.py
"""

import os
import sys

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn
from torch import nn
from torch.distributed.algorithms import Join
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Subset, TensorDataset


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
    model = DistributedDataParallel(nn.Linear(4, 1).to(device))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(torch.randn(9, 4), torch.randn(9, 1))
    # 9 samples in batches of 2: rank 0 gets 5 (3 batches), rank 1 gets 4 (2)
    share = Subset(data, range(rank, len(data), world))
    loader = DataLoader(share, batch_size=2)

    # A rank that runs out of batches keeps answering the others' all-reduces
    # until every rank is done.
    with Join([model]):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    batches = [None] * world
    dist.all_gather_object(batches, len(loader))
    params = torch.cat([p.detach().flatten() for p in model.parameters()])
    copies = [torch.empty_like(params) for _ in range(world)]
    dist.all_gather(copies, params)
    if rank == 0:
        print("batches per rank:", batches)
        identical = all(torch.equal(c, params) for c in copies)
        print("parameters identical on all ranks:", identical)
    del model, optimizer
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
