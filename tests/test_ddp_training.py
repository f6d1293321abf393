"""What docs/{en,zh}/ddp-training.md (DDP in practice) says, asserted on the installed PyTorch: no_sync() and
gradient accumulation, device_id, SyncBatchNorm and unused parameters on the CPU."""

from __future__ import annotations

import ast
import functools
import re

import pytest

from distributed import run_python, section, torchrun_two_cpu_ranks
from site_pages import REPO
from snippet_runs import run_snippet


def test_without_the_last_sync_the_ranks_gradients_stay_apart(tmp_path):
    # The page's no_sync() script prints True for "after it" and "same gradients": with every micro-batch inside
    # no_sync() (no all-reduce at all), each rank keeps the gradient of its own 32 samples, and both say False.
    script = (REPO / "snippets/multi_gpu/ddp_no_sync.py").read_text(encoding="utf-8")
    never, found = re.subn(r"nullcontext\(\) if last else model\.no_sync\(\)", "model.no_sync()", script)
    assert found == 1
    probe = tmp_path / "never_synced.py"
    probe.write_text(never, encoding="utf-8")
    done = torchrun_two_cpu_ranks(str(probe), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "before the last micro-batch, ranks agree: False",
        "after it: False",
        "same gradients as one batch of 64: False",
    ]


def micro_batches_per_step(start: int, micro_batches: int = 12, accumulation_steps: int = 4) -> list[int]:
    """How many micro-batches each optimizer step follows, with the page's condition and enumerate(start=...)."""
    counts, since = [], 0
    for i, _ in enumerate(range(micro_batches), start=start):
        since += 1
        if i % accumulation_steps == 0:  # the page's sync condition
            counts.append(since)
            since = 0
    return counts


def test_the_no_sync_condition_needs_micro_batches_counted_from_one():
    assert micro_batches_per_step(start=1) == [4, 4, 4]
    assert micro_batches_per_step(start=0) == [1, 4, 4]  # enumerate's default: the first step after one
    # the GPU memory page's loop counts the same way
    loop = (REPO / "snippets/gpu_memory/grad_accumulation_loop.py").read_text(encoding="utf-8")
    assert "enumerate(loader, start=1)" in loop and "if i % accumulation_steps == 0:" in loop
    for lang in ("en", "zh"):
        text = section(lang, "no-sync")
        assert "`for i, batch in enumerate(loader, start=1):`" in text, lang
        assert "`sync = i % accumulation_steps == 0`" in text and "`optimizer.zero_grad()`" in text, lang


# One process, a world of one (Gloo, no torchrun): what the page says of device_id (refused without an index,
# accepted as cpu:0), SyncBatchNorm and find_unused_parameters on the CPU, each line printed by the probe below.
WORLD_OF_ONE = """\
import torch, torch.distributed as dist
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel

torch.manual_seed(0)
x = torch.randn(2, 4, 5, 5)
plain = nn.BatchNorm2d(4)
synced = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(4)))[0]
print("no group, like BatchNorm:", torch.equal(plain(x), synced(x)))
try:
    dist.init_process_group("gloo", device_id=torch.device("cpu"), store=dist.HashStore(), rank=0, world_size=1)
except ValueError as error:
    print(error)
dist.init_process_group("gloo", device_id=torch.device("cpu:0"), store=dist.HashStore(), rank=0, world_size=1)
dist.barrier()
print("cpu:0 accepted:", dist.get_backend())
dist.destroy_process_group()
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
try:
    synced(x)
except ValueError as error:
    print(error)
synced.eval()
print("eval, like BatchNorm:", torch.equal(plain.eval()(x), synced(x)))
try:
    DistributedDataParallel(nn.Sequential(nn.Conv2d(3, 4, 3), synced))
except ValueError as error:
    print(error)

class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.main, self.aux = nn.Linear(2, 1), nn.Linear(2, 1)
    def forward(self, x):
        return self.main(x)

model = DistributedDataParallel(TwoHeads())
try:
    for _ in range(2):
        model(torch.randn(3, 2)).sum().backward()
except RuntimeError as error:
    print(repr(str(error)))
del model
dist.destroy_process_group()
"""


@functools.cache
def world_of_one() -> list[str]:
    return run_python(WORLD_OF_ONE, CUDA_VISIBLE_DEVICES="").splitlines()


def test_device_id_must_have_an_index():
    # ddp-training.md#device-id: torch 2.15 takes any device with an index (before: an accelerator only)
    message = "init_process_group device_id parameter must be a device with a valid index, e.g. cpu:0 or cuda:0"
    lines = world_of_one()
    assert message in lines
    assert "cpu:0 accepted: gloo" in lines, lines
    for lang in ("en", "zh"):
        text = (REPO / "docs" / lang / "ddp-training.md").read_text(encoding="utf-8")
        assert f"`ValueError: {message}`" in text and '`torch.device("cpu:0")`' in text, lang


def test_only_the_scripts_from_no_sync_on_bind_the_group_to_the_gpu():
    # ddp-training.md#device-id: which scripts pass device_id on the NCCL path, and which one does not.
    binds = 'dist.init_process_group("nccl", device_id=device)'
    for script in ("ddp_no_sync.py", "ddp_unused.py", "sync_batchnorm.py", "fsdp_train.py"):
        assert binds in (REPO / "snippets/multi_gpu" / script).read_text(encoding="utf-8"), script
    assert "device_id=" not in (REPO / "snippets/multi_gpu/ddp_train.py").read_text(encoding="utf-8")
    # ... so with the legacy backend (nccl2 binds the group itself, below) its closing barrier takes the path
    # that warns (tests/data/citations.yml)
    for lang in ("en", "zh"):
        text = section(lang, "device-id")
        assert "(#no-sync)" in text and "`ddp_train.py`" in text, lang
        assert "scripts above" not in text and "上面几个脚本" not in text, lang


def test_sync_batchnorm_on_the_cpu():
    lines = world_of_one()
    # without a process group, and in eval mode, it is a plain BatchNorm ...
    assert "no group, like BatchNorm: True" in lines and "eval, like BatchNorm: True" in lines
    # ... while training with a group, a CPU tensor is refused, and DDP refuses the CPU module
    assert "SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone" in lines
    assert "SyncBatchNorm layers only work with GPU modules" in lines


def test_the_unused_parameter_error_names_the_fix():
    message = ast.literal_eval(world_of_one()[-1])  # the repr printed by the probe above
    assert message.startswith("Expected to have finished reduction in the prior iteration before starting a new one.")
    assert "passing the keyword argument `find_unused_parameters=True`" in message
    assert "Parameter indices which did not receive grad for rank 0: 2 3" in message
    assert "set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL" in message


@pytest.mark.parametrize("script", ['ddp_no_sync.py', 'ddp_unused.py', 'sync_batchnorm.py'])
def test_a_torchrun_script_started_with_plain_python_says_so_in_one_line(script):
    done = run_snippet(f"snippets/multi_gpu/{script}").result(timeout=300)  # `python snippets/multi_gpu/<script>`
    assert done.returncode == 1
    assert done.stderr.strip() == "start it with torchrun, as its docstring shows"


def test_without_device_id_nccl2_binds_the_group_to_the_local_rank_s_gpu(monkeypatch):
    # ddp-training.md#device-id: _nccl2_device binds an unbound group to cuda:(LOCAL_RANK % GPUs), and barrier()
    # takes a bound device before it reaches the branch that warns (that branch is the legacy backend's)
    import inspect
    from types import SimpleNamespace

    import torch
    from torch.distributed import distributed_c10d

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setenv("LOCAL_RANK", "3")
    group = SimpleNamespace(bound_device_id=None)
    options = SimpleNamespace(enable_reconfigure=False, process_group=group, global_ranks_in_group=[], group_rank=3)
    assert distributed_c10d._nccl2_device(options) == torch.device("cuda", 1)
    assert group.bound_device_id == torch.device("cuda", 1)
    barrier = inspect.getsource(distributed_c10d.barrier)
    assert barrier.index('getattr(group, "bound_device_id", None) is not None') < barrier.index("warnings.warn(")
    for lang in ("en", "zh"):
        assert "`_nccl2_device`" in section(lang, "device-id"), lang
