"""What the GPU memory page says, asserted on the installed PyTorch (and on a GPU where one is present)."""

from __future__ import annotations

import inspect
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from snippet_runs import run_code

MiB = 2**20
# The parts of a CUDA out-of-memory message the page describes, in the order they appear.
OOM_MESSAGE_PARTS = (
    b"CUDA out of memory. Tried to allocate ",
    b" has a total capacity of ",
    b" of which ",
    b"Including non-PyTorch memory, this process",
    b"Of the allocated memory ",
    b" is allocated by PyTorch, ",
    b" is reserved by PyTorch but unallocated.",
    b"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
)


def test_the_cuda_oom_message_has_the_parts_the_page_names():
    lib = Path(torch.__file__).parent / "lib" / "libc10_cuda.so"
    if torch.version.cuda is None or not lib.is_file():
        pytest.skip("no CUDA allocator library in this build of PyTorch")
    allocator = lib.read_bytes()
    missing = [part for part in OOM_MESSAGE_PARTS if part not in allocator]
    assert not missing


def test_accelerator_has_the_memory_functions_the_page_lists():
    for name in ("memory_allocated", "memory_reserved", "max_memory_allocated", "max_memory_reserved",
                 "reset_peak_memory_stats", "memory_stats", "empty_cache", "get_memory_info"):
        assert callable(getattr(torch.accelerator, name)), name


def test_one_oom_class_for_every_device():
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    assert issubclass(torch.OutOfMemoryError, RuntimeError)


@pytest.mark.skipif(torch.cuda.is_available(), reason="shows what a machine without a CUDA GPU does")
def test_without_a_gpu_the_generic_reset_is_quiet_where_the_cuda_one_raises():
    assert torch.accelerator.reset_peak_memory_stats() is None
    assert torch.accelerator.memory_reserved() == 0
    assert torch.accelerator.memory_stats() == {}
    # the CUDA reset fails a check of its device argument, not a question to the driver
    with pytest.raises(RuntimeError, match=r"^invalid argument to reset_peak_memory_stats$"):
        torch.cuda.reset_peak_memory_stats()
    with pytest.raises(RuntimeError, match="Found no NVIDIA driver"):
        torch.cuda.mem_get_info()
    with pytest.raises(RuntimeError):
        torch.accelerator.get_memory_info()


def test_empty_cache_may_reduce_fragmentation_by_its_docstring():
    # the page quotes this qualification of "empty_cache gives your program no more memory"
    doc = " ".join(torch.cuda.empty_cache.__doc__.split())
    assert "doesn't increase the amount of GPU memory available for PyTorch" in doc
    assert "may help reduce fragmentation of GPU memory in certain cases" in doc


KILLED_WORKER = '''
import os, signal
from torch.utils.data import DataLoader, Dataset

class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's OOM killer sends

try:
    next(iter(DataLoader(Dies(), num_workers=1)))
except RuntimeError as err:
    print(err)
    print(err.__cause__)
'''


def test_a_worker_killed_like_the_oom_killer_does_is_reported_so():
    run = run_code(KILLED_WORKER)
    assert run.returncode == 0, run.stderr
    printed, cause = run.stdout.splitlines()
    assert re.fullmatch(r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly", printed)
    assert re.fullmatch(r"DataLoader worker \(pid \d+\) is killed by signal: Killed\. ?", cause)


@pytest.mark.cuda
def test_del_keeps_the_block_reserved_and_empty_cache_returns_it():
    torch.cuda.empty_cache()
    base_allocated, base_reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    x = torch.empty(256 * MiB, dtype=torch.uint8, device="cuda")
    assert torch.cuda.memory_allocated() - base_allocated == 256 * MiB
    del x
    assert torch.cuda.memory_allocated() == base_allocated
    assert torch.cuda.memory_reserved() - base_reserved >= 256 * MiB  # still cached
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() == base_reserved


@pytest.mark.cuda
def test_the_peak_grows_with_the_batch():
    model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 10)).cuda()
    peaks = []
    for batch_size in (64, 512):
        torch.cuda.reset_peak_memory_stats()
        model(torch.randn(batch_size, 4096, device="cuda")).sum().backward()
        peaks.append(torch.cuda.max_memory_allocated())
    assert peaks[1] > peaks[0]


@pytest.mark.cuda
def test_an_impossible_request_raises_out_of_memory_and_leaves_nothing_allocated():
    before = torch.cuda.memory_allocated()
    total = torch.cuda.get_device_properties(0).total_memory
    with pytest.raises(torch.OutOfMemoryError, match=r"^CUDA out of memory\. Tried to allocate"):
        torch.empty(2 * total, dtype=torch.uint8, device="cuda")
    assert torch.cuda.memory_allocated() == before


@pytest.mark.cuda
def test_the_driver_sees_at_least_what_pytorch_reserved():
    x = torch.ones(1024, 1024, 64, device="cuda")
    free, total = torch.cuda.mem_get_info()
    assert total - free >= torch.cuda.memory_reserved() >= x.nbytes


def test_a_process_figure_has_two_reasons_and_only_the_card_total_counts_other_processes():
    # gpu-memory.md#nvidia-smi: nvidia-smi's per-process "Used GPU Memory" is what that process's context uses
    # (nvidia-smi(1), "Compute Apps"), so other processes cannot be a reason for it; they are in the card-wide
    # total, which is what the page's snippet measures with mem_get_info (cudaMemGetInfo, "global").
    assert "Return the global free and total GPU memory" in torch.cuda.mem_get_info.__doc__
    docs = Path(__file__).parent.parent / "docs"
    for lang, reasons, total in (("en", "for two reasons:", "The GPU-wide total at the top of its table"),
                                 ("zh", "原因有二：", "表格顶部显示的整块 GPU 的总占用")):
        page = (docs / lang / "gpu-memory.md").read_text(encoding="utf-8")
        text = page.split("{ #nvidia-smi }")[1].split("\n## ")[0]
        listed = re.findall(r"^\d+\. ", text, re.M)
        assert reasons in text and listed == ["1. ", "2. "], lang
        assert total in text, lang


# --- memory snapshot, allocator settings (sections #memory-snapshot and #alloc-conf) ---

TORCH_DIR = Path(torch.__file__).parent


def allocator_settings(env: dict[str, str]) -> str:
    """What a fresh process's allocator makes of these variables: its settings, or its error's first line."""
    code = (
        "import os\n"
        f"os.environ.update({env!r})\n"
        "import torch\n"
        "try:\n"
        "    s = torch.cuda.memory._snapshot()['allocator_settings']\n"
        "    print(s['expandable_segments'], s['max_split_size'], s['garbage_collection_threshold'])\n"
        "except ValueError as err:\n"
        "    print('ValueError:', err)\n"
    )
    run = run_code(code)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_both_variable_names_are_read_and_the_cuda_one_wins():
    assert allocator_settings({"PYTORCH_ALLOC_CONF": "expandable_segments:True"}) == "True -1 0.0"
    assert allocator_settings({"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}) == "True -1 0.0"
    both = {"PYTORCH_ALLOC_CONF": "expandable_segments:True", "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:256"}
    assert allocator_settings(both) == f"False {256 * MiB} 0.0"
    # the generic settings too: a bad generic value is not even looked at while the CUDA name is set
    both = {"PYTORCH_ALLOC_CONF": "no_such_option:1", "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    assert allocator_settings(both) == "True -1 0.0"


def test_the_headers_say_what_the_page_quotes_of_them():
    generic = " ".join((TORCH_DIR / "include/c10/core/AllocatorConfig.h").read_text().split())
    assert "The primary environment variable for configuration is `PYTORCH_ALLOC_CONF`." in generic
    assert "`PYTORCH_CUDA_ALLOC_CONF` is also supported * with lower priority." in generic
    cuda = (TORCH_DIR / "include/c10/cuda/CUDAAllocatorConfig.h").read_text()
    instance = cuda[cuda.index("static CUDAAllocatorConfig& instance()"):]
    assert instance.index('"PYTORCH_CUDA_ALLOC_CONF"') < instance.index('"PYTORCH_ALLOC_CONF"')
    assert "if (!env.has_value()) {\n        env = c10::utils::get_env(\"PYTORCH_ALLOC_CONF\");" in instance


def test_the_settings_are_read_once():
    code = (
        "import os, torch\n"
        "os.environ['PYTORCH_ALLOC_CONF'] = 'expandable_segments:True'\n"
        "before = torch.cuda.memory._snapshot()['allocator_settings']['expandable_segments']\n"
        "os.environ['PYTORCH_ALLOC_CONF'] = 'expandable_segments:False'\n"
        "print(before, torch.cuda.memory._snapshot()['allocator_settings']['expandable_segments'])\n"
    )
    run = run_code(code)
    assert (run.returncode, run.stdout.strip()) == (0, "True True"), run.stderr


@pytest.mark.parametrize(("setting", "error"), [
    ("max_split_size_mb:19", "ValueError: CachingAllocator option max_split_size_mb too small, must be >= 20"),
    ("garbage_collection_threshold:1.5", "ValueError: garbage_collect_threshold is invalid, set it in (0.0, 1.0)"),
])
def test_values_out_of_range_are_refused(setting, error):
    assert allocator_settings({"PYTORCH_ALLOC_CONF": setting}) == error
    assert allocator_settings({"PYTORCH_ALLOC_CONF": setting.replace("19", "20").replace("1.5", "0.5")}) != error


def test_the_recording_functions_take_the_arguments_the_page_uses():
    record = inspect.signature(torch.cuda.memory._record_memory_history).parameters
    assert record["enabled"].default == "all" and "max_entries" in record
    assert "Expect each entry to be several KB" in torch.cuda.memory._record_memory_history.__doc__
    assert "pytorch.org/memory_viz" in torch.cuda.memory._dump_snapshot.__doc__


@pytest.mark.skipif(torch.cuda.is_available(), reason="shows what a machine without a CUDA GPU does")
def test_without_a_gpu_recording_needs_the_driver():
    with pytest.raises(RuntimeError, match="Found no NVIDIA driver"):
        torch.cuda.memory._record_memory_history(max_entries=10)


def test_the_viewer_names_the_views_the_page_lists():
    viz = (TORCH_DIR / "cuda/_memory_viz.py").read_text()
    for view in ("Active Memory Timeline", "Allocator State History"):
        assert f'"{view}"' in viz


def test_memory_viz_stats_summarises_a_snapshot_offline(tmp_path):
    snapshot = tmp_path / "snapshot.pickle"
    torch.cuda.memory._dump_snapshot(str(snapshot))  # works without a GPU: an empty snapshot
    done = subprocess.run([sys.executable, "-m", "torch.cuda._memory_viz", "stats", str(snapshot)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "total_reserved" in done.stdout


def test_memory_summary_has_the_rows_the_page_reads():
    source = inspect.getsource(torch.cuda.memory_summary)
    for row in ("Allocated memory", "GPU reserved memory", "Non-releasable memory", "CUDA OOMs",
                "cudaMalloc retries", "Cur Usage", "Peak Usage", "Tot Alloc", "Tot Freed"):
        assert row in source, row
    assert '("inactive_split_bytes", "Non-releasable memory"' in source


# --- fitting a bigger model or batch (section #fitting-more) ---

def test_accumulating_without_dividing_gives_steps_times_the_gradient():
    torch.manual_seed(0)
    model = nn.Linear(20, 1)
    inputs, targets = torch.randn(32, 20), torch.randn(32, 1)
    nn.functional.mse_loss(model(inputs), targets).backward()
    full = model.weight.grad.clone()
    model.zero_grad()
    for x, y in zip(inputs.chunk(4), targets.chunk(4), strict=True):
        nn.functional.mse_loss(model(x), y).backward()
    torch.testing.assert_close(model.weight.grad, 4 * full)


def test_ddp_has_no_sync_for_accumulation():
    doc = " ".join(nn.parallel.DistributedDataParallel.no_sync.__doc__.split())
    assert "disable gradient synchronizations across DDP processes" in doc


def test_checkpoint_without_use_reentrant_warns_and_runs_the_reentrant_variant():
    block = nn.Linear(4, 4)
    with pytest.warns(UserWarning) as caught:
        checkpoint(block, torch.randn(2, 4))  # an input without requires_grad: only reentrant complains
    messages = [str(w.message) for w in caught]
    # torch 2.15 says "In a future release" (2.14 said "Starting in PyTorch 2.9", which had passed)
    assert any("use_reentrant parameter should be passed explicitly" in m and "In a future release, calling "
               "checkpoint without use_reentrant will raise an exception" in m for m in messages)
    assert any("None of the inputs have requires_grad=True" in m for m in messages)


def test_inference_mode_docstring_says_what_the_pages_quote():
    doc = " ".join(torch.inference_mode.__doc__.split())
    assert "it removes additional overhead by disabling view tracking and version counter bumps" in doc
    assert "`inference_mode` does NOT automatically set the model to evaluation mode" in doc


def test_loading_into_meta_without_assign_is_a_no_op_with_a_warning():
    with torch.device("meta"):
        model = nn.Linear(4, 2)
    with pytest.warns(UserWarning, match="which is a no-op.*assign=True"):
        model.load_state_dict(nn.Linear(4, 2).state_dict())
    assert model.weight.is_meta


def test_assign_keeps_requires_grad_and_asks_for_the_optimizer_afterwards():
    with torch.device("meta"):
        model = nn.Linear(4, 2)
    model.load_state_dict({k: v.detach() for k, v in nn.Linear(4, 2).state_dict().items()}, assign=True)
    assert model.weight.requires_grad and not model.weight.is_meta
    doc = " ".join(nn.Module.load_state_dict.__doc__.split())
    assert "the optimizer must be created after the call to :attr:`load_state_dict`" in doc


@pytest.mark.skipif(not Path("/proc/self/maps").is_file(), reason="reads Linux's /proc/self/maps")
def test_mmap_load_maps_the_file_instead_of_reading_it(tmp_path):
    mapped, read = tmp_path / "mapped.pt", tmp_path / "read.pt"
    for path in (mapped, read):
        torch.save(nn.Linear(256, 256).state_dict(), path)
    state = torch.load(mapped, mmap=True, weights_only=True)
    copy = torch.load(read, weights_only=True)
    maps = Path("/proc/self/maps").read_text()
    assert str(mapped) in maps and str(read) not in maps
    del state, copy


@pytest.mark.cuda
def test_a_snapshot_records_each_allocation_with_its_stack(tmp_path):
    torch.cuda.memory._record_memory_history(max_entries=1000)
    try:
        x = torch.empty(4 * MiB, dtype=torch.uint8, device="cuda")
        torch.cuda.memory._dump_snapshot(str(tmp_path / "snapshot.pickle"))
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    snapshot = pickle.loads((tmp_path / "snapshot.pickle").read_bytes())
    allocs = [e for trace in snapshot["device_traces"] for e in trace if e["action"] == "alloc"]
    assert any(e["size"] >= x.nbytes and e["frames"] for e in allocs)
