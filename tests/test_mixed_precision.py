"""What the mixed-precision page says beyond its own outputs, asserted on the installed PyTorch."""

from __future__ import annotations

import pytest
import torch

from snippet_runs import run_code


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


@pytest.mark.parametrize(("precision", "onednn"), [("highest", "ieee"), ("high", "tf32"), ("medium", "bf16")])
def test_the_matmul_precision_reaches_onednn_on_the_cpu(precision, onednn):
    try:
        torch.set_float32_matmul_precision(precision)
        assert torch.backends.mkldnn.matmul.fp32_precision == onednn
    finally:
        torch.set_float32_matmul_precision("highest")  # the default


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
