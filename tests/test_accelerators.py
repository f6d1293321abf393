"""What the other-accelerators page says that its blocks do not show, asserted where a CPU machine can."""

from __future__ import annotations

import sys

import pytest
import torch


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS wheels contain MPS")
def test_no_build_outside_macos_contains_mps():
    assert not torch.backends.mps.is_built()
    assert not torch.backends.mps.is_available()


def test_the_backend_modules_have_the_functions_the_page_names():
    for name in ("synchronize", "empty_cache"):
        assert callable(getattr(torch.mps, name)), f"torch.mps.{name}"
    for name in ("is_available", "device_count", "synchronize", "memory_allocated", "empty_cache"):
        assert callable(getattr(torch.xpu, name)), f"torch.xpu.{name}"


def test_a_build_targets_one_accelerator_and_hip_marks_rocm():
    backend = torch.accelerator.current_accelerator()
    if torch.version.hip is not None or torch.version.cuda is not None:
        assert backend.type == "cuda"  # ROCm keeps the cuda device type
    assert not (torch.version.hip and torch.version.cuda)


@pytest.mark.skipif(torch.xpu.is_available(), reason="checks a machine without an Intel GPU")
def test_xpu_answers_no_without_hardware():
    assert torch.xpu.device_count() == 0
