"""What the older-code page (docs/{en,zh}/legacy.md) says of legacy APIs, pinned with real torch: legacy
tensor types, an optimizer built before the move, `nn.DataParallel`.

Each erratum in docs/data/errata/legacy.yml has its marked test here. Tests marked `cuda`, `multi_gpu`
or `no_cuda` run only where the machine fits.
"""

from __future__ import annotations

import warnings

import pytest
import torch
from torch import nn


@pytest.fixture
def warn_always():
    """PyTorch shows its legacy-API warnings once per process; make them repeat for the test."""
    previous = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    yield
    torch.set_warn_always(previous)


# ---- legacy tensor types -----------------------------------------------------------------------------------


@pytest.mark.erratum("set-default-tensor-type-deprecated")
def test_set_default_tensor_type_is_deprecated(warn_always):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.set_default_tensor_type(torch.FloatTensor)
    messages = [(w.category, str(w.message)) for w in caught]
    assert any(
        category is UserWarning and "set_default_tensor_type() is deprecated as of PyTorch 2.1" in text
        for category, text in messages
    ), messages


def test_legacy_default_type_is_invisible_to_get_default_device(warn_always):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.set_default_tensor_type("torch.cuda.FloatTensor")
        try:
            assert torch.get_default_device() == torch.device("cpu")
            if not torch.cuda.is_available():
                with pytest.raises(RuntimeError):
                    torch.ones(2)  # the legacy default does aim at the GPU
            else:
                assert torch.ones(2).is_cuda
        finally:
            torch.set_default_tensor_type(torch.FloatTensor)
    assert torch.ones(2).device == torch.device("cpu")


@pytest.mark.erratum("typed-cuda-constructors-legacy")
def test_typed_cuda_constructor_is_legacy(warn_always):
    with pytest.warns(UserWarning, match="constructors are no longer recommended"):
        try:
            legacy = torch.cuda.FloatTensor(2, 3)
        except RuntimeError:
            assert not torch.cuda.is_available()
        else:
            assert legacy.is_cuda and legacy.dtype == torch.float32 and legacy.shape == (2, 3)


def test_typed_cpu_constructor_does_not_warn(warn_always):
    # the page says only the CUDA ones warn
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        legacy = torch.FloatTensor(2, 3)
    assert [str(w.message) for w in caught] == []
    assert legacy.device.type == "cpu" and legacy.dtype == torch.float32


# ---- an optimizer built before the move --------------------------------------------------------------------


def test_optimizer_keeps_parameters_through_in_place_conversion():
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    held = optimizer.param_groups[0]["params"]
    model.to(torch.float64)
    assert all(p is q for p, q in zip(held, model.parameters(), strict=True))
    model.to("meta")
    assert not any(p is q for p, q in zip(held, model.parameters(), strict=True))
    assert held[0].device.type == "cpu"


@pytest.mark.erratum("optimizer-state-does-not-follow-module")
def test_optimizer_state_does_not_follow_module():
    model = nn.Linear(3, 1)
    optimizer = torch.optim.Adam(model.parameters())
    x = torch.ones(2, 3)
    model(x).sum().backward()
    optimizer.step()
    optimizer.zero_grad()
    model.to(torch.float64)
    assert optimizer.state[model.weight]["exp_avg"].dtype == torch.float32
    model(x.double()).sum().backward()
    with pytest.raises(RuntimeError):
        optimizer.step()


def test_optimizer_load_state_dict_casts_to_parameter_device():
    model = nn.Linear(3, 1)
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.ones(2, 3)).sum().backward()
    optimizer.step()
    restored = nn.Linear(3, 1, device="meta")
    restored_optimizer = torch.optim.Adam(restored.parameters())
    restored_optimizer.load_state_dict(optimizer.state_dict())
    state = restored_optimizer.state[restored.weight]
    assert state["exp_avg"].device.type == "meta"
    assert state["exp_avg_sq"].device.type == "meta"
    assert state["step"].device.type == "cpu"


# ---- nn.DataParallel ---------------------------------------------------------------------------------------


@pytest.mark.no_cuda
def test_dataparallel_without_gpu_only_wraps_the_module():
    model = nn.Linear(4, 2)
    wrapped = nn.DataParallel(model, device_ids=[0, 1, 2])  # not even checked: there is nothing to check against
    assert wrapped.device_ids == [] and wrapped.module is model
    x = torch.randn(3, 4)
    assert torch.equal(wrapped(x), model(x))


@pytest.mark.erratum("dataparallel-hard-coded-device-ids")
@pytest.mark.multi_gpu
def test_dataparallel_rejects_more_device_ids_than_gpus():
    # guide 001: DataParallel(model, device_ids=[0, 1, 2]) whenever device_count() > 1
    count = torch.cuda.device_count()
    model = nn.Linear(4, 2).to("cuda:0")
    with pytest.raises(AssertionError, match="Invalid device id"):
        nn.DataParallel(model, device_ids=list(range(count + 1)))
    wrapped = nn.DataParallel(model)  # the default: every visible GPU
    assert wrapped.device_ids == list(range(count))
    assert wrapped(torch.randn(8, 4)).device == torch.device("cuda:0")


def test_dataparallel_docstring_recommends_ddp():
    doc = " ".join(nn.DataParallel.__doc__.split())
    assert "It is recommended to use :class:`~torch.nn.parallel.DistributedDataParallel`" in doc
    assert "even if there is only a single node" in doc


@pytest.mark.erratum("dataparallel-quoted-constructor-is-old")
def test_dataparallel_constructor_no_longer_asks_cuda():
    # guide 001 quotes DataParallel.__init__ as testing torch.cuda.is_available()
    import inspect

    source = inspect.getsource(nn.DataParallel.__init__)
    assert "torch.cuda.is_available()" not in source
    assert "_get_available_device_type()" in source
