# --8<-- [start:program]
"""Data-parallel training with DistributedDataParallel.

Start it with torchrun, one process per GPU:

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/ddp_train.py
"""

import os

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main() -> None:
    # torchrun tells each process who it is through environment variables.
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    per_node = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    # one GPU for each process on this machine
    if torch.cuda.device_count() >= per_node:
        backend, device = "nccl", torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    else:  # no GPUs (or too few): the same code runs on CPU processes
        backend, device = "gloo", torch.device("cpu")
    if "LOCAL_RANK" in os.environ:
        # rank, world size and meeting point come from torchrun
        dist.init_process_group(backend)
    else:
        # started as plain `python ddp_train.py`: a world of one process,
        # handy for debugging
        store = dist.HashStore()
        dist.init_process_group(backend, store=store, rank=0, world_size=1)
    rank, world = dist.get_rank(), dist.get_world_size()

    # Every process builds the same synthetic data set; the sampler hands each
    # one a different part.
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1024, 16, generator=g)
    w = torch.randn(16, 1, generator=g)
    y = x @ w + 0.1 * torch.randn(1024, 1, generator=g)
    data = TensorDataset(x, y)
    sampler = DistributedSampler(data, shuffle=True, seed=0)
    loader = DataLoader(data, batch_size=32, sampler=sampler)

    # DDP copies rank 0's parameters to every process, then averages gradients
    # during backward().
    model = DistributedDataParallel(
        nn.Linear(16, 1).to(device),
        device_ids=[local_rank] if backend == "nccl" else None,
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.MSELoss()

    epoch_losses = []
    for epoch in range(3):
        # a new shuffle each epoch, the same on every rank
        sampler.set_epoch(epoch)
        running = torch.zeros((), device=device)
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.detach()
        mean_loss = running / len(loader)
        dist.all_reduce(mean_loss)  # sum over ranks ...
        # ... and average: one host-device sync per epoch
        epoch_losses.append(mean_loss.item() / world)

    # Every process has its own model copy: after training they must all agree.
    params = torch.cat([p.detach().flatten() for p in model.parameters()])
    copies = [torch.empty_like(params) for _ in range(world)]
    dist.all_gather(copies, params)
    if rank == 0:  # print once, not once per process
        print(f"world size {world}, backend {backend}")
        identical = all(torch.equal(c, params) for c in copies)
        print("parameters identical on all ranks:", identical)
        print("loss fell:", epoch_losses[-1] < epoch_losses[0])
    # free DDP's hold on the process group, and let every rank finish talking,
    # before tearing it down
    del model, optimizer
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
