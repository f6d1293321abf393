"""What docs/{en,zh}/gpu-memory.md (Where memory goes) says, asserted on the installed PyTorch (and on a GPU
where one is present): allocated and reserved memory, the peak, nvidia-smi's figures, memory snapshots."""

from __future__ import annotations

import inspect
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

MiB = 2**20


def test_accelerator_has_the_memory_functions_the_page_lists():
    for name in ("memory_allocated", "memory_reserved", "max_memory_allocated", "max_memory_reserved",
                 "reset_peak_memory_stats", "memory_stats", "empty_cache", "get_memory_info"):
        assert callable(getattr(torch.accelerator, name)), name


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
def test_the_driver_sees_at_least_what_pytorch_reserved():
    x = torch.ones(1024, 1024, 64, device="cuda")
    free, total = torch.cuda.mem_get_info()
    assert total - free >= torch.cuda.memory_reserved() >= x.nbytes


def test_a_process_figure_has_two_reasons_and_only_the_card_total_counts_other_processes():
    # gpu-memory.md#nvidia-smi: nvidia-smi's per-process "Used GPU Memory" is what that process's context uses
    # (nvidia-smi(1), "Compute Apps"), so other processes cannot be a reason for it; they are in the card-wide
    # total, which is what the page's snippet measures with mem_get_info (cudaMemGetInfo, "global").
    docs = Path(__file__).parent.parent / "docs"
    for lang, reasons, total in (("en", "for two reasons:", "The GPU-wide total at the top of its table"),
                                 ("zh", "原因有二：", "表格顶部显示的整块 GPU 的总占用")):
        page = (docs / lang / "gpu-memory.md").read_text(encoding="utf-8")
        text = page.split("{ #nvidia-smi }")[1].split("\n## ")[0]
        listed = re.findall(r"^\d+\. ", text, re.M)
        assert reasons in text and listed == ["1. ", "2. "], lang
        assert total in text, lang


def test_the_recording_functions_take_the_arguments_the_page_uses():
    record = inspect.signature(torch.cuda.memory._record_memory_history).parameters
    assert record["enabled"].default == "all" and "max_entries" in record


@pytest.mark.skipif(torch.cuda.is_available(), reason="shows what a machine without a CUDA GPU does")
def test_without_a_gpu_recording_needs_the_driver():
    with pytest.raises(RuntimeError, match="Found no NVIDIA driver"):
        torch.cuda.memory._record_memory_history(max_entries=10)


def test_memory_viz_stats_summarises_a_snapshot_offline(tmp_path):
    snapshot = tmp_path / "snapshot.pickle"
    torch.cuda.memory._dump_snapshot(str(snapshot))  # works without a GPU: an empty snapshot
    done = subprocess.run([sys.executable, "-m", "torch.cuda._memory_viz", "stats", str(snapshot)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "total_reserved" in done.stdout


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
