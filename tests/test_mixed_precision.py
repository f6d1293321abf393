"""What the mixed-precision page says beyond its own outputs, asserted on the installed PyTorch."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
import torch

from site_pages import DOCS, LANGUAGES, REPO
from snippet_runs import run_code

COMPILE_RECORD = REPO / "tests/data/compile_cost/2026-11-25_cpu_amd-epyc.txt"


def test_autocast_defaults_to_float16_on_cuda_and_bfloat16_on_cpu():
    assert torch.get_autocast_dtype("cuda") == torch.float16
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16


def test_grad_scaler_skips_a_step_with_an_inf_gradient_and_lowers_the_scale():
    weight = torch.nn.Parameter(torch.ones(3))
    optimizer = torch.optim.SGD([weight], lr=1.0)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    scaler.scale((weight * float("inf")).sum()).backward()
    scaler.step(optimizer)
    scaler.update()
    assert torch.equal(weight.detach(), torch.ones(3))  # the step was skipped
    assert scaler.get_scale() == 512.0


def test_float16_underflows_below_its_smallest_subnormal():
    assert torch.tensor(1e-8).half().item() == 0.0
    assert torch.tensor(1e-7).half().item() != 0.0  # above 2**-24, about 6e-8


def test_float16_rounds_up_to_its_smallest_subnormal_from_half_of_it():
    # only a value under 2**-25 (half of the smallest, about 3e-8) becomes 0
    assert torch.tensor(3e-8).half().item() == 2.0**-24
    assert torch.tensor(2.9e-8).half().item() == 0.0


@pytest.mark.parametrize(("precision", "onednn", "cuda"),
                         [("highest", "ieee", "ieee"), ("high", "tf32", "tf32"), ("medium", "bf16", "tf32")])
def test_the_matmul_precision_reaches_onednn_on_the_cpu(precision, onednn, cuda):
    # "medium" means bfloat16 products only for oneDNN: the CUDA backend gets TF32, as for "high"
    try:
        torch.set_float32_matmul_precision(precision)
        assert torch.backends.mkldnn.matmul.fp32_precision == onednn
        assert torch.backends.cuda.matmul.fp32_precision == cuda
    finally:
        torch.set_float32_matmul_precision("highest")  # the default


def test_only_onednn_takes_bf16_as_an_fp32_precision():
    with pytest.raises(RuntimeError, match="backend 'cuda' does not support precision 'bf16'"):
        torch.backends.cuda.matmul.fp32_precision = "bf16"
    try:
        torch.backends.mkldnn.matmul.fp32_precision = "bf16"
        assert torch.backends.mkldnn.matmul.fp32_precision == "bf16"
    finally:
        torch.backends.mkldnn.matmul.fp32_precision = "none"


def test_an_fp32_precision_of_none_follows_the_setting_above_it():
    matmul = torch.backends.mkldnn.matmul
    before = matmul.fp32_precision
    try:
        matmul.fp32_precision = "none"
        with torch.backends.flags(fp32_precision="tf32"):  # the global setting
            assert matmul.fp32_precision == "tf32"
        matmul.fp32_precision = "ieee"  # a setting of its own wins
        with torch.backends.flags(fp32_precision="tf32"):
            assert matmul.fp32_precision == "ieee"
    finally:
        matmul.fp32_precision = before


def fake_cuda_gpu(monkeypatch, major: int) -> None:
    """Let torch.cuda.is_bf16_supported run as on one NVIDIA GPU of compute capability `major`.x on which a
    bfloat16 tensor can be created (true of every GPU of the cu132 wheel, sm_75 and newer)."""
    monkeypatch.setattr(torch.version, "hip", None)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device=None: SimpleNamespace(major=major))
    monkeypatch.setattr(torch.cuda, "_check_bf16_tensor_supported", lambda device: True)


def test_is_bf16_supported_counts_emulated_bfloat16_by_default(monkeypatch):
    fake_cuda_gpu(monkeypatch, major=7)  # a T4 or an RTX 20 series card: 7.5
    assert torch.cuda.is_bf16_supported() is True
    assert torch.cuda.is_bf16_supported(including_emulation=False) is False
    fake_cuda_gpu(monkeypatch, major=8)  # Ampere and later
    assert torch.cuda.is_bf16_supported(including_emulation=False) is True


def test_is_tf32_supported_asks_for_compute_capability_8(monkeypatch):
    fake_cuda_gpu(monkeypatch, major=7)
    assert torch.cuda.is_tf32_supported() is False
    fake_cuda_gpu(monkeypatch, major=8)
    assert torch.cuda.is_tf32_supported() is True


def test_is_bf16_supported_says_yes_on_every_rocm_build(monkeypatch):
    monkeypatch.setattr(torch.version, "hip", "7.0")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # answered before any device is asked
    assert torch.cuda.is_bf16_supported(including_emulation=False) is True


@pytest.mark.cuda
def test_autocast_on_cuda_runs_a_matmul_in_float16():
    model = torch.nn.Linear(8, 4).cuda()
    with torch.autocast(device_type="cuda"):
        out = model(torch.randn(2, 8, device="cuda"))
    assert out.dtype == torch.float16
    assert model.weight.dtype == torch.float32


def test_defaults_of_a_fresh_process():
    # the page blocks change these settings in-process, so ask a process of its own for the defaults
    code = ("import torch; print(torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32,"
            " torch.backends.cudnn.allow_tf32, torch.backends.cudnn.benchmark)")
    run = run_code(code)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["highest", "False", "True", "False"]


def test_fp32_precision_defaults_of_a_fresh_process():
    code = ("import torch; b = torch.backends; print(b.fp32_precision, b.cuda.matmul.fp32_precision,"
            " b.cudnn.conv.fp32_precision, b.cudnn.rnn.fp32_precision, b.mkldnn.fp32_precision,"
            " b.mkldnn.matmul.fp32_precision, b.mkldnn.conv.fp32_precision, b.mkldnn.rnn.fp32_precision)")
    run = run_code(code)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["none", "none", "tf32", "tf32", "none", "none", "none", "none"]


def compile_runs() -> list[dict]:
    """The runs of compile_cost.py kept in the record: cache, load average before, and the two lines."""
    runs = []
    for block in COMPILE_RECORD.read_text(encoding="utf-8").split("\nrun: ")[1:]:
        step = r"{} +first step +([\d.]+) s, then +(\d+) µs per step on cpu"
        eager, compiled = (re.search(step.format(name), block) for name in ("eager", "compiled"))
        runs.append({
            "cache": block.split(" cache", 1)[0],
            "time": re.search(r"T(\d\d:\d\d):\d\dZ", block)[1],
            "load": re.search(r"load before: ([\d.]+)", block)[1],
            "eager": eager[2], "first": compiled[1], "compiled": compiled[2],
        })
    return runs


def test_compile_record_holds_the_verdict_the_page_draws():
    runs = compile_runs()
    assert [run["cache"] for run in runs] == ["empty", "warm"]
    for run in runs:
        assert float(run["first"]) > 1  # seconds, even with a warm cache
        assert int(run["compiled"]) > int(run["eager"])  # the compiled step was not faster


@pytest.mark.parametrize("lang", LANGUAGES)
def test_compile_table_is_the_record(lang):
    page = (DOCS / lang / "mixed-precision.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d\d:\d\d)\S* [^|]*\| ([\d.]+) \| (\d+) µs \| ([\d.]+) s \| (\d+) µs \|$", page, re.M)
    assert rows == [(r["time"], r["load"], r["eager"], r["first"], r["compiled"]) for r in compile_runs()]


def test_a_bfloat16_model_refuses_float32_inputs():
    # the inference section: unlike autocast, weights cast with .to(dtype) need inputs of that dtype
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 must have the same dtype"):
        torch.nn.Linear(4, 2).to(torch.bfloat16)(torch.randn(1, 4))
    conv_message = r"^Input type \(float\) and bias type \(c10::BFloat16\) should be the same"
    with pytest.raises(RuntimeError, match=conv_message):
        torch.nn.Conv2d(3, 4, 3).to(torch.bfloat16)(torch.randn(1, 3, 8, 8))
