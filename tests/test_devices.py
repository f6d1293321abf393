"""What the devices page says and the guides got wrong, asserted on the installed PyTorch."""

from __future__ import annotations

import pytest
import torch


def test_current_device_is_an_index_not_a_count():
    # guide 000 comments `torch.cuda.current_device()` as "number of GPUs"
    if not torch.cuda.is_available():
        assert torch.cuda.device_count() == 0
        with pytest.raises(RuntimeError):  # no driver: an error, not a count of 0
            torch.cuda.current_device()
        return
    count = torch.cuda.device_count()
    assert 0 <= torch.cuda.current_device() < count  # an index, so always below the count
    with torch.cuda.device(count - 1):
        assert torch.cuda.current_device() == count - 1


def test_cuda_and_cuda_0_are_different_devices():
    # guide 003: "cuda:0 和 cuda 是等价的"
    plain, first = torch.device("cuda"), torch.device("cuda:0")
    assert plain.index is None and first.index == 0
    assert plain != first
    assert torch.device("cuda", 0) == first


@pytest.mark.cuda
def test_a_tensor_on_cuda_lands_on_the_current_device():
    assert torch.ones(1, device="cuda").device == torch.device("cuda", torch.cuda.current_device())


@pytest.mark.multi_gpu
def test_plain_cuda_follows_the_current_device():
    with torch.cuda.device(1):
        assert torch.ones(1, device="cuda").device == torch.device("cuda:1")
        assert torch.ones(1).cuda().device == torch.device("cuda:1")
    assert torch.ones(1, device="cuda").device == torch.device("cuda:0")


def test_cuda_wheel_brings_its_own_cuda_runtime_and_cudnn():
    # guide 000: install CUDA and cuDNN matching PyTorch before using a GPU
    if torch.version.cuda is None:
        pytest.skip("a CPU-only build of PyTorch has no CUDA libraries to bring")
    # answered from the libraries inside the installed package, with no GPU, driver or toolkit needed
    assert torch.backends.cudnn.is_available()
    assert torch.backends.cudnn.version() is not None
