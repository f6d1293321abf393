# --8<-- [start:program]
"""Sharded data parallelism with FSDP2's fully_shard.

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/fsdp_train.py
"""

import gc
import os
import sys

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
)
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import fully_shard


def block() -> nn.Module:
    return nn.Sequential(nn.Linear(64, 64), nn.ReLU())


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
    mesh = init_device_mesh(device.type, (dist.get_world_size(),))
    train(mesh, device)
    # Before tearing the group down, nothing may still hold it (see the page):
    # FSDP's state sits in reference cycles, so collect them ...
    gc.collect()
    dist.barrier()
    dist.destroy_process_group()
    # ... and DTensor's caches keep the mesh, whose registry holds the group
    # (torch 2.15): empty it, so the group goes now, not at interpreter exit.
    getattr(mesh, "_pg_registry", {}).clear()


def train(mesh: DeviceMesh, device: torch.device) -> None:
    rank = dist.get_rank()
    torch.manual_seed(0)  # every rank builds the same model ...
    model = nn.Sequential(block(), block(), block(), nn.Linear(64, 2))
    total = sum(p.numel() for p in model.parameters())
    # Shard each block, then the root (which takes what is left: the last
    # layer). fully_shard moves the shards to the mesh's device.
    for layer in model[:-1]:
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    # ... and keeps its own rows of it: the parameters are now DTensors.
    held = sum(p.to_local().numel() for p in model.parameters())
    # built after fully_shard: its state is sharded like the parameters
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    g = torch.Generator().manual_seed(rank)  # each rank its own data
    x = torch.randn(256, 64, generator=g).to(device)
    y = x[:, :2].sum(dim=1, keepdim=True).repeat(1, 2)
    losses = []
    for _ in range(20):
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()  # gradients: reduce-scattered, one shard per rank
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())

    # A whole state dict for torch.save, gathered on rank 0's CPU
    # (an empty dict on the others).
    options = StateDictOptions(full_state_dict=True, cpu_offload=True)
    state = get_model_state_dict(model, options=options)
    if rank == 0:
        print(f"parameters: {total}, held by rank 0: {held}")
        whole = sum(t.numel() for t in state.values())
        print("full state dict on rank 0:", whole == total)
        print("loss fell:", losses[-1] < losses[0])


# --8<-- [end:program]


if __name__ == "__main__":
    main()
