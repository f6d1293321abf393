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


def test_mps_memory_functions_exist_and_check_the_fraction_without_a_device():
    import inspect

    for name in ("current_allocated_memory", "driver_allocated_memory", "recommended_max_memory", "empty_cache"):
        assert not inspect.signature(getattr(torch.mps, name)).parameters, f"torch.mps.{name}"
    assert list(inspect.signature(torch.mps.set_per_process_memory_fraction).parameters) == ["fraction"]
    # the argument is checked before any device is touched: a float from 0 to 2
    with pytest.raises(TypeError, match="must be `float`"):
        torch.mps.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Allowed range: 0~2"):
        torch.mps.set_per_process_memory_fraction(2.5)


@pytest.mark.parametrize(("variables", "visible"), [
    ({"CUDA_VISIBLE_DEVICES": "1"}, [1]),  # a ROCm build honours CUDA's variable
    ({"CUDA_VISIBLE_DEVICES": "0,1", "HIP_VISIBLE_DEVICES": "1"}, [1]),  # HIP's wins over it
    ({"ROCR_VISIBLE_DEVICES": "0,1"}, [0, 1]),  # ROCR alone: that many GPUs
    ({"ROCR_VISIBLE_DEVICES": "0,1", "HIP_VISIBLE_DEVICES": "1"}, [1]),  # HIP chooses among ROCR's
    ({"ROCR_VISIBLE_DEVICES": "0,1", "CUDA_VISIBLE_DEVICES": "1"}, [0, 1]),  # ROCR without HIP: CUDA's unread
])
def test_a_rocm_build_counts_the_gpus_its_variables_leave(monkeypatch, variables, visible):
    # the accelerators page: the rules of _parse_visible_devices, replayed as a ROCm build runs them
    monkeypatch.setattr(torch.version, "hip", "7.0.0")
    for name in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"):
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert torch.cuda._parse_visible_devices() == visible


def test_hip_may_not_list_more_gpus_than_rocr(monkeypatch):
    monkeypatch.setattr(torch.version, "hip", "7.0.0")
    monkeypatch.setenv("ROCR_VISIBLE_DEVICES", "0")
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "0,1")
    with pytest.raises(RuntimeError, match=r"^HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES$"):
        torch.cuda._parse_visible_devices()


def test_xpu_counts_by_ze_affinity_mask(monkeypatch):
    from torch._inductor.autotune_process import get_visible_devices_env_var

    # torch's own table of "which variable selects the devices"
    assert get_visible_devices_env_var("cuda") == "CUDA_VISIBLE_DEVICES"
    assert get_visible_devices_env_var("xpu") == "ZE_AFFINITY_MASK"
    monkeypatch.setenv("ZE_AFFINITY_MASK", "1,0")
    assert torch.xpu._parse_visible_devices() == [1, 0]
    monkeypatch.setenv("ZE_AFFINITY_MASK", "0.0,0.1")  # sub-devices: PyTorch leaves the count to the runtime
    assert torch.xpu._parse_visible_devices() == []
