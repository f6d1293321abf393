# --8<-- [start:program]
"""Under DDP: save a checkpoint on rank 0, load it on every rank's device.

torchrun --standalone --nproc-per-node=2 snippets/multi_gpu/ddp_checkpoint.py
"""

import os
import sys
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist

# before init_process_group: lets destroy_process_group free the group
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def save_atomically(state: dict, path: Path) -> None:
    """Write a temporary file, then rename it: path is never half-written."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    torch.save(state, partial)
    os.replace(partial, path)


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

    torch.manual_seed(0)  # the same model on every rank
    model = DistributedDataParallel(nn.Linear(16, 1).to(device))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss = model(torch.randn(8, 16, device=device)).square().mean()
    loss.backward()
    optimizer.step()

    checkpoint = Path(tempfile.gettempdir()) / "ddp-checkpoint.pt"
    if rank == 0:  # one process writes the file
        state = {
            "model": model.module.state_dict(),  # keys without "module."
            "optimizer": optimizer.state_dict(),
            "step": 1,
        }
        save_atomically(state, checkpoint)
    # no rank reads the file before rank 0 has written it
    dist.barrier()

    # Every rank loads onto its own device: without map_location, tensors
    # saved from cuda:0 would all go back to cuda:0.
    state = torch.load(checkpoint, map_location=device)
    resumed = nn.Linear(16, 1).to(device)
    resumed.load_state_dict(state["model"])  # before wrapping it in DDP
    on_device = all(t.device == device for t in state["model"].values())
    pairs = zip(resumed.parameters(), model.module.parameters(), strict=True)
    same = all(torch.equal(a, b) for a, b in pairs)

    # one line per question, counted over the ranks
    flags = torch.tensor([on_device, same], device=device, dtype=torch.int)
    dist.all_reduce(flags)
    if rank == 0:
        print("saved by rank 0:", ", ".join(state["model"]))
        print("ranks that loaded it onto their own device:", flags[0].item())
        print("ranks that resumed with the saved weights:", flags[1].item())
    del model, optimizer
    dist.barrier()
    dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
