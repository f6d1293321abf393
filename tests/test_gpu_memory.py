"""What the GPU memory page says, asserted on the installed PyTorch (and on a GPU where one is present)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

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
    with pytest.raises(RuntimeError):
        torch.cuda.reset_peak_memory_stats()
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
