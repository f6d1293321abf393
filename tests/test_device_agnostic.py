"""What the device-agnostic page (docs/{en,zh}/device-agnostic.md) teaches and the guides got wrong,
asserted on the installed PyTorch. Each erratum in docs/data/errata/device-agnostic.yml names one of these tests.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn


def test_to_returns_the_same_tensor_when_nothing_changes():
    x = torch.arange(3.0)
    assert x.to("cpu") is x and x.to(torch.device("cpu")) is x and x.to(torch.float32) is x
    assert x.to("cpu", copy=True) is not x and x.to(torch.float64) is not x
    model = nn.Linear(2, 2)
    assert model.to("cpu") is model


@pytest.mark.erratum("to-does-not-replace-cpu-and-cuda")
def test_cpu_and_cuda_methods_are_not_replaced_by_to():
    # guide 001: .to() moves tensors and modules "instead of the previous cpu() or cuda() methods"
    t, net = torch.ones(2), nn.Linear(2, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a deprecated method would warn here
        assert t.cpu() is t and net.cpu() is net
    for method in (torch.Tensor.cpu, torch.Tensor.cuda, nn.Module.cpu, nn.Module.cuda):
        assert "deprecated" not in (method.__doc__ or "").lower()
