"""What the devices page says and the guides got wrong, asserted on the installed PyTorch."""

from __future__ import annotations

import inspect

import pytest
import torch


@pytest.mark.erratum("current-device-is-not-a-count")
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


@pytest.mark.erratum("cuda-is-not-cuda-0")
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


@pytest.mark.erratum("cuda-toolkit-not-needed")
def test_cuda_wheel_brings_its_own_cuda_runtime_and_cudnn():
    # guide 000: install CUDA and cuDNN matching PyTorch before using a GPU
    if torch.version.cuda is None:
        pytest.skip("a CPU-only build of PyTorch has no CUDA libraries to bring")
    # answered from the libraries inside the installed package, with no GPU, driver or toolkit needed
    assert torch.backends.cudnn.is_available()
    assert torch.backends.cudnn.version() is not None
    # what must match the card is the build: kernels for its compute capability (the erratum's last part)
    if torch.version.cuda in ("13.0", "13.2"):
        assert torch.cuda.get_arch_list() == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]


def test_a_gpu_older_than_the_build_is_sent_to_the_cu126_build(monkeypatch):
    # the devices page: with the CUDA 13 build this site pins (cu132), a P100 (compute capability 6.0) passes
    # is_available() but has no kernels; CUDA's first use runs these two checks of the installed torch, which name
    # the build to use
    if torch.version.cuda != "13.2":
        pytest.skip(f"the page describes the cu132 build; this is {torch.__version__}")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (6, 0))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Tesla P100-PCIE-16GB")
    with pytest.warns(UserWarning) as caught:
        torch.cuda._check_capability()
        torch.cuda._check_cubins()
    text = "\n".join(str(w.message) for w in caught)
    assert "does not include kernels for this GPU" in text
    assert "--index-url https://download.pytorch.org/whl/cu126" in text
    assert "is not compatible with the current PyTorch installation" in text
    assert "/whl/cu132" not in text  # the installed build is not offered again


# ---- more of the guides' claims, checked line by line ----------------------------------------------------


@pytest.mark.erratum("print-shows-the-short-form-of-a-device")
def test_print_shows_the_short_form_of_a_device():
    # guide 002, section 6: print(x_to.device) commented as "device(type='cuda', index=0)"
    device = torch.device("cuda", 0)
    assert str(device) == "cuda:0"  # what print() shows
    assert repr(device) == "device(type='cuda', index=0)"  # what a notebook echoes for a bare expression
    assert str(torch.ones(1).device) == "cpu"


@pytest.mark.erratum("a-device-is-not-a-context")
def test_pytorch_calls_it_a_device_not_a_context():
    # guide 003: "每个数组都有一个设备（device），我们通常将其称为环境（context）"
    t = torch.ones(1)
    assert isinstance(t.device, torch.device)
    for name in ("context", "ctx", "as_in_context"):  # MXNet's words, where d2l's text comes from
        assert not hasattr(t, name)
    assert not hasattr(torch, "context") and not hasattr(torch, "Context")


@pytest.mark.no_cuda
def test_current_device_without_a_gpu_says_why(monkeypatch):
    # What torch.cuda.current_device() raises where guide 000 prints 0: on this CUDA build without a driver ...
    if torch.version.cuda is not None:
        with pytest.raises(RuntimeError, match=r"^Found no NVIDIA driver on your system\."):
            torch.cuda.current_device()
    # ... and on a CPU-only build, which lacks the CUDA bindings that are removed here
    monkeypatch.delattr(torch._C, "_cuda_getDeviceCount", raising=False)
    with pytest.raises(AssertionError, match=r"^Torch not compiled with CUDA enabled$"):
        torch.cuda.current_device()


# torch.accelerator appeared in PyTorch 2.6, whose current_accelerator() took no argument (and raised
# without an accelerator); check_available= came with 2.7, as each release's documentation shows.
ACCELERATOR_SINCE, CHECK_AVAILABLE_SINCE = "2.6", "2.7"


def test_version_notes_name_the_release_that_introduced_the_api():
    from site_pages import REPO

    parameter = inspect.signature(torch.accelerator.current_accelerator).parameters["check_available"]
    assert parameter.default is False
    # Code that passes check_available= must not be labelled with the release before it ...
    for path in sorted((REPO / "snippets").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if "check_available" in line:
                nearby = "\n".join(lines[max(0, i - 3): i + 1])
                assert f"{ACCELERATOR_SINCE}+" not in nearby, f"{path}:{i + 1}"
    # ... and the pages date both, in both languages.
    en, zh = (REPO / "docs" / lang / "devices.md" for lang in ("en", "zh"))
    assert f"Since PyTorch {ACCELERATOR_SINCE}, `torch.accelerator`" in en.read_text(encoding="utf-8")
    assert f"argument arrived in\nPyTorch {CHECK_AVAILABLE_SINCE}" in en.read_text(encoding="utf-8")
    assert f"参数是\nPyTorch {CHECK_AVAILABLE_SINCE} 才加入的" in zh.read_text(encoding="utf-8")


# ---- CUDA in several processes -----------------------------------------------------------------------------

FORK_PROBE = """
import multiprocessing, os, sys
import torch
if sys.argv[1] == "nvml-answers":
    # stand in for NVML, the driver's management library, answering "no GPU"
    torch.cuda._raw_device_count_nvml = lambda: 0
print(torch.cuda.is_available())
child = multiprocessing.get_context("fork").Process(
    target=lambda: sys.exit(3 if torch.cuda._is_in_bad_fork() else 0))
child.start()
child.join()
print("spoiled" if child.exitcode == 3 else "clean")
"""


def _fork_probe(nvml_variable: bool, nvml: str) -> list[str]:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("PYTORCH_NVML_BASED_CUDA_CHECK", "CUDA_VISIBLE_DEVICES")}
    if nvml_variable:
        env["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
    done = subprocess.run([sys.executable, "-c", FORK_PROBE, nvml], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.split()


@pytest.mark.no_cuda
def test_the_nvml_check_leaves_forks_alone_when_nvml_answers():
    # the devices page: with the variable, is_available() asks NVML and does not start CUDA ...
    assert _fork_probe(nvml_variable=True, nvml="nvml-answers") == ["False", "clean"]
    # ... without it, the same question starts CUDA and spoils every later fork, NVML or not
    assert _fork_probe(nvml_variable=False, nvml="nvml-answers") == ["False", "spoiled"]


@pytest.mark.no_cuda
def test_without_nvml_the_variable_falls_back_to_cuda():
    # what the page's second run shows: no NVIDIA driver, so no NVML, so the check asks CUDA after all
    assert _fork_probe(nvml_variable=True, nvml="as-installed") == ["False", "spoiled"]


def test_the_fork_error_and_the_nvml_variable_are_in_the_installed_source():
    source = inspect.getsource(torch.cuda)
    assert '"Cannot re-initialize CUDA in forked subprocess. To use CUDA with "' in source
    assert 'os.getenv("PYTORCH_NVML_BASED_CUDA_CHECK") == "1"' in source
    assert "return device_count() > 0" in inspect.getsource(torch.cuda.is_available)
    # torch.accelerator hands the question to torch.cuda's Python function
    assert "mod.is_available()" in inspect.getsource(torch.accelerator.is_available)
