"""What docs/{en,zh}/fsdp.md (FSDP2) says, asserted on the installed PyTorch: fully_shard's docstring, each
rank's slice of the averaged gradient, and the two teardown lines the script needs."""

from __future__ import annotations

import re
import sys

import pytest
from pytest_codeblocks import CodeBlock

from codeblocks_plugin import start_command
from distributed import torchrun_two_cpu_ranks
from site_pages import REPO
from snippet_runs import run_snippet

FSDP_AVERAGES = """\
import gc
import torch, torch.distributed as dist
import torch.distributed.nn
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Linear(4, 2, bias=False)
alone = nn.Linear(4, 2, bias=False)
alone.load_state_dict(model.state_dict())
mesh = init_device_mesh("cpu", (2,))
fully_shard(model, mesh=mesh)
x = torch.randn(3, 4)  # the same batch on both ranks: the average is one rank's gradient, the sum twice it
model(x).sum().backward()
alone(x).sum().backward()
mine = model.weight.grad.to_local()
right = torch.tensor([int(mine.shape == (1, 4) and torch.allclose(mine, alone.weight.grad[rank : rank + 1]))])
dist.all_reduce(right)  # one rank prints: two ranks printing to one pipe can run their lines together
if rank == 0:
    print("ranks with their own row of the averaged gradient:", right.item())
del model, mine  # then the page's FSDP teardown: nothing may hold the group when it goes
gc.collect()
dist.barrier()
dist.destroy_process_group()
mesh._pg_registry.clear()
"""


def test_fully_shard_gives_each_rank_its_slice_of_the_averaged_gradient(tmp_path):
    probe = tmp_path / "fsdp_averages.py"
    probe.write_text(FSDP_AVERAGES, encoding="utf-8")
    done = torchrun_two_cpu_ranks(str(probe), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["ranks with their own row of the averaged gradient: 2"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads thread names from /proc")
@pytest.mark.parametrize(
    "line",
    ["    gc.collect()\n", '    getattr(mesh, "_pg_registry", {}).clear()\n'],
    ids=["without gc.collect", "without emptying the mesh's registry"],
)
def test_each_line_of_the_fsdp_teardown_is_needed(line, tmp_path):
    # FSDP's state sits in reference cycles that hold the group, and DTensor's caches (torch 2.15) keep the
    # mesh, whose registry holds it too: without either line the Gloo threads outlive main(), and the exit check
    # that every page's torchrun block runs under says so. When a torch release frees them by itself, this fails
    # and the line can go.
    script = (REPO / "snippets/multi_gpu/fsdp_train.py").read_text(encoding="utf-8")
    assert script.count(line) == 1
    without = tmp_path / "fsdp_train.py"
    without.write_text(script.replace(line, ""), encoding="utf-8")
    command = f"torchrun --standalone --nproc-per-node=2 --log-dir {tmp_path / 'logs'} {without}"
    stdout, stderr = (process := start_command(CodeBlock(command, 0, "bash"))).communicate(timeout=600)
    assert process.returncode != 0, stdout
    for rank in (0, 1):
        assert re.search(rf"^rank {rank}: Gloo threads outlive the script: \[.*gloo", stderr, re.M), stderr[-3000:]


@pytest.mark.parametrize("script", ['fsdp_train.py'])
def test_a_torchrun_script_started_with_plain_python_says_so_in_one_line(script):
    done = run_snippet(f"snippets/multi_gpu/{script}").result(timeout=300)  # `python snippets/multi_gpu/<script>`
    assert done.returncode == 1
    assert done.stderr.strip() == "start it with torchrun, as its docstring shows"
