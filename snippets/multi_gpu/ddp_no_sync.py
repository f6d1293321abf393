# --8<-- [start:program]
"""Gradient accumulation under DistributedDataParallel, with no_sync().

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/ddp_no_sync.py
"""

import copy
import os
import sys
from contextlib import nullcontext

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def agree(t: torch.Tensor) -> bool:
    """Whether every rank holds the same values in t."""
    copies = [torch.empty_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(copies, t)
    return all(torch.equal(c, t) for c in copies)


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
    net = nn.Linear(16, 1).to(device)
    single = copy.deepcopy(net)  # a copy to train on one batch, for comparison
    model = DistributedDataParallel(net)
    x = torch.randn(32 * world, 16, device=device)
    y = torch.randn(32 * world, 1, device=device)
    loss_fn = nn.MSELoss()

    # This rank's 32 samples, as 4 micro-batches of 8: one optimizer step.
    mine = slice(32 * rank, 32 * (rank + 1))
    steps = 4
    micro = zip(x[mine].chunk(steps), y[mine].chunk(steps), strict=True)
    for i, (xb, yb) in enumerate(micro, start=1):
        last = i == steps
        # forward and backward inside no_sync(): no all-reduce, the gradient
        # is only added to .grad ...
        with nullcontext() if last else model.no_sync():
            loss = loss_fn(model(xb), yb) / steps
            loss.backward()
        if i == steps - 1:
            before_last = agree(net.weight.grad)
    # ... until the last micro-batch, whose backward() averages the sums.
    # Here a training loop calls optimizer.step() and optimizer.zero_grad().
    after_last = agree(net.weight.grad)

    # The same step on one process: one batch of all 32 * world samples.
    loss_fn(single(x), y).backward()
    pairs = zip(net.parameters(), single.parameters(), strict=True)
    same = all(torch.allclose(a.grad, b.grad, atol=1e-6) for a, b in pairs)
    if rank == 0:
        print("before the last micro-batch, ranks agree:", before_last)
        print("after it:", after_last)
        print(f"same gradients as one batch of {32 * world}:", same)
    del model
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
