"""What the tensors and modules pages claim, pinned with real torch.

Each erratum in docs/data/errata/tensors_modules.yml names one of these tests. Tests marked `cuda`
or `multi_gpu` are skipped on machines without (enough) GPUs and run on the GPU job.
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


# --- where a tensor lives -------------------------------------------------------------------------


def test_get_device_is_minus_one_on_cpu():
    t = torch.tensor([1, 2, 3])
    assert t.get_device() == -1
    assert t.device == torch.device("cpu")
    assert not t.is_cuda


def test_get_divice_does_not_exist():
    t = torch.tensor([1, 2, 3])
    assert not hasattr(t, "get_divice")
    assert callable(t.get_device)  # without () it is a bound method, not an index
    assert isinstance(t.get_device(), int)


def test_one_tensor_class_for_all_devices():
    cpu, meta = torch.ones(2), torch.ones(2, device="meta")
    assert type(cpu) is torch.Tensor
    assert type(meta) is torch.Tensor
    assert type(nn.Linear(3, 1)) is type(nn.Linear(3, 1, device="meta"))


# --- moving and copying ---------------------------------------------------------------------------


def test_to_current_device_returns_same_tensor():
    t = torch.tensor([1.0, 2.0])
    assert t.to(t.device) is t
    assert t.to("cpu") is t
    assert t.cpu() is t
    assert t.to(torch.float32) is t
    forced = t.to("cpu", copy=True)
    assert forced is not t
    assert forced.data_ptr() != t.data_ptr()
    moved = t.to("meta")
    assert moved is not t
    assert t.device.type == "cpu"


@pytest.mark.cuda
def test_cuda_to_same_gpu_returns_same_tensor():
    x = torch.ones(2, 3, device="cuda:0")
    z = x.cuda(0)
    assert z is x
    assert x.to("cuda:0") is x
    y = torch.rand(2, 3, device="cuda:0")
    assert (y + z).device == torch.device("cuda:0")  # same device: adding works directly


@pytest.mark.cuda
def test_tensor_cuda_copies_from_cpu_and_leaves_original():
    t = torch.tensor([1, 2, 3])
    g = t.cuda()
    assert g is not t
    assert not t.is_cuda and g.is_cuda


@pytest.mark.multi_gpu
def test_cuda_without_index_uses_current_device():
    t = torch.tensor([1, 2, 3])
    with torch.cuda.device(1):
        assert t.cuda().device == torch.device("cuda:1")
        assert t.cuda(0).device == torch.device("cuda:0")


@pytest.mark.multi_gpu
def test_cuda_device_zero_differs_from_default_after_set_device():
    t = torch.tensor([1, 2, 3])
    with torch.cuda.device(1):
        assert t.cuda(device=0).device != t.cuda().device


# --- the same-device rule -------------------------------------------------------------------------


def test_mixed_devices_raise_runtime_error():
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        torch.ones(2) + torch.ones(2, device="meta")


def test_module_and_input_on_different_devices_raise_runtime_error():
    # the pages show this with a GPU; the meta device checks the same rule on any machine
    net = nn.Linear(3, 1, device="meta")
    x = torch.ones(2, 3)
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        net(x)
    assert net(x.to(next(net.parameters()).device)).shape == (2, 1)  # the fix the modules page gives


def test_cpu_scalar_tensor_mixes_with_other_devices():
    result = torch.ones(2, device="meta") + torch.tensor(2.0)
    assert result.device.type == "meta"
    with pytest.raises(RuntimeError):
        torch.ones(2, device="meta") + torch.ones(1)  # one element, but 1-D: not a scalar


@pytest.mark.cuda
def test_cpu_scalar_tensor_mixes_with_cuda():
    x = torch.tensor([1, 2, 3], device="cuda")
    assert torch.equal((x * torch.tensor(2)).cpu(), torch.tensor([2, 4, 6]))


@pytest.mark.cuda
def test_cuda_mixed_device_message():
    x, y = torch.ones(3, device="cuda"), torch.ones(3)
    with pytest.raises(RuntimeError) as add_error:
        x + y
    assert str(add_error.value).startswith("Expected all tensors to be on the same device")
    net = nn.Linear(3, 1)
    with pytest.raises(RuntimeError) as linear_error:
        net(torch.ones(2, 3, device="cuda"))
    assert str(linear_error.value).startswith("Expected all tensors to be on the same device")


# --- default devices and legacy types -------------------------------------------------------------


def test_device_context_and_set_default_device():
    with torch.device("meta"):
        assert torch.get_default_device().type == "meta"
        assert torch.ones(2).device.type == "meta"
        assert nn.Linear(3, 1).weight.device.type == "meta"
        assert torch.zeros(2, device="cpu").device.type == "cpu"
    assert torch.ones(2).device.type == "cpu"
    torch.set_default_device("meta")
    try:
        assert torch.arange(3).device.type == "meta"
    finally:
        torch.set_default_device(None)
    assert torch.get_default_device() == torch.device("cpu")


@pytest.mark.cuda
def test_cuda_device_context_does_not_set_default_device():
    with torch.cuda.device(0):
        assert torch.ones(2).device == torch.device("cpu")
        assert torch.ones(2, device="cuda").device == torch.device("cuda:0")
        assert torch.get_default_device() == torch.device("cpu")
    with torch.device("cuda:0"):
        assert torch.ones(2).device == torch.device("cuda:0")


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


def test_typed_cuda_constructor_is_legacy(warn_always):
    with pytest.warns(UserWarning, match="constructors are no longer recommended"):
        try:
            legacy = torch.cuda.FloatTensor(2, 3)
        except RuntimeError:
            assert not torch.cuda.is_available()
        else:
            assert legacy.is_cuda and legacy.dtype == torch.float32 and legacy.shape == (2, 3)


def test_new_and_like_keep_dtype_and_device():
    src = torch.empty(2, device="meta", dtype=torch.float16)
    for made in (src.new_full((3, 4), 9), src.new_zeros(3, 4), torch.ones_like(src), torch.zeros_like(src)):
        assert made.device.type == "meta" and made.dtype == torch.float16
    assert torch.ones_like(src, device="cpu").device.type == "cpu"


# --- modules --------------------------------------------------------------------------------------


def test_module_to_is_in_place_and_returns_self():
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    weight = net[0].weight
    assert net.to(torch.float64) is net
    assert net[0].weight is weight  # same Parameter, converted in place
    assert weight.dtype == torch.float64
    assert net.to("meta") is net
    assert {p.device.type for p in net.parameters()} == {"meta"}


@pytest.mark.cuda
def test_cuda_module_move_keeps_parameter_objects():
    net = nn.Linear(3, 1)
    weight = net.weight
    assert net.cuda() is net
    assert net.weight is weight and weight.is_cuda
    assert net.cpu() is net and not weight.is_cuda


def test_moving_a_parameter_leaves_module_unchanged():
    layer = nn.Linear(3, 1)
    for p in layer.parameters():
        p.to("meta")
        p.to(torch.float64)
    assert layer.weight.device.type == "cpu"
    assert layer.weight.dtype == torch.float32
    layer.to("meta")
    assert layer.weight.device.type == "meta"


def test_buffers_move_and_are_replaced():
    bn = nn.BatchNorm1d(3)
    running_mean = bn.running_mean
    bn.to("meta", torch.float16)
    assert bn.running_mean.device.type == "meta" and bn.running_mean.dtype == torch.float16
    assert bn.num_batches_tracked.dtype == torch.int64
    assert running_mean.device.type == "cpu"
    bn = nn.BatchNorm1d(3)
    running_mean = bn.running_mean
    bn.to(torch.float64)
    assert bn.running_mean is not running_mean


def test_model_and_input_must_share_device():
    net = nn.Linear(3, 1, device="meta")
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        net(torch.ones(2, 3))
    assert net(torch.ones(2, 3, device="meta")).shape == (2, 1)


# --- losses ---------------------------------------------------------------------------------------


def test_weighted_loss_does_not_follow_inputs():
    logits = torch.randn(4, 2, device="meta")
    target = torch.tensor([1, 0, 0, 1], device="meta")
    assert nn.CrossEntropyLoss()(logits, target).device.type == "meta"  # nothing to move
    weighted = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
    assert dict(weighted.named_buffers())["weight"].device.type == "cpu"
    with pytest.raises(RuntimeError):
        weighted(logits, target)
    assert weighted.to("meta") is weighted
    assert weighted.weight.device.type == "meta"
    assert weighted(logits, target).device.type == "meta"


def test_t_tensor_is_not_a_constructor():
    t = torch.tensor([1, 2, 3])  # what `t` is in the guide at that point
    assert not hasattr(t, "Tensor")
    target = torch.tensor([1, 0, 0, 1])
    assert target.dtype == torch.int64  # no .long() needed
    assert torch.equal(torch.Tensor([1, 0, 0, 1]).long(), target)


def test_loss_called_with_builtin_input_is_type_error():
    criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
    with pytest.raises(TypeError, match="must be Tensor"):
        criterion(input, torch.tensor([1, 0, 0, 1]))


# --- optimizers -----------------------------------------------------------------------------------


def test_optimizer_keeps_parameters_through_in_place_conversion():
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    held = optimizer.param_groups[0]["params"]
    model.to(torch.float64)
    assert all(p is q for p, q in zip(held, model.parameters(), strict=True))
    model.to("meta")
    assert not any(p is q for p, q in zip(held, model.parameters(), strict=True))
    assert held[0].device.type == "cpu"


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


# --- more of the guides' claims, checked line by line ---------------------------------------------


def test_parameter_has_its_own_device():
    # guide 003: net[0].weight.data.device
    net = nn.Sequential(nn.Linear(3, 1))
    weight = net[0].weight
    assert weight.device == weight.data.device == torch.device("cpu")  # .data adds nothing here
    assert type(weight.data) is torch.Tensor and not weight.data.requires_grad  # it steps outside autograd:
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        weight.mul_(2)  # autograd guards the parameter ...
    weight.data.mul_(2)  # ... but not changes made through .data


def test_module_buffers_print_as_a_plain_dict():
    # guide 002, section 3: print(criterion._buffers) shows OrderedDict([('weight', tensor([1., 3.]))])
    criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
    assert type(criterion._buffers) is dict
    assert repr(criterion._buffers) == "{'weight': tensor([1., 3.])}"
    assert dict(criterion.named_buffers()) == {"weight": criterion.weight}  # the public way to list them


def test_moving_only_the_model_or_only_the_data_fails():
    # guide 004, section 3.2: without moving them, model and data "still compute on the CPU"
    x = torch.ones(2, 3)
    assert nn.Linear(3, 1)(x).device == torch.device("cpu")  # neither moved: true
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        nn.Linear(3, 1).to("meta")(x)  # only the model moved (meta stands in for the GPU)
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        nn.Linear(3, 1)(x.to("meta"))  # only the data moved


@pytest.mark.cuda
def test_mismatch_message_no_longer_names_wrapper_addmm():
    # guide 000 quotes "... found at least two devices, cpu and cuda:0! (when checking argument for
    # argument mat1 in method wrapper_addmm)"
    net = nn.Linear(3, 1)
    with pytest.raises(RuntimeError) as error:
        net(torch.ones(2, 3, device="cuda"))
    message = str(error.value)
    assert message.startswith("Expected all tensors to be on the same device")
    assert "when checking argument for argument mat1 in method wrapper_addmm" not in message
    assert "mat1" in message and "cuda:0" in message and "cpu" in message


@pytest.mark.cuda
def test_gpu_memory_in_use_exceeds_the_tensors():
    # guide 003: a tensor on a GPU uses only that GPU's memory, "which nvidia-smi shows"
    x = torch.ones(2, 3, device="cuda")
    free, total = torch.cuda.mem_get_info()  # the driver's view, which nvidia-smi also reports
    assert torch.cuda.memory_allocated() >= x.nbytes
    assert torch.cuda.memory_reserved() >= 2 * 2**20 > x.nbytes  # the caching allocator takes whole blocks
    assert total - free > torch.cuda.memory_reserved()  # plus the CUDA context, which no tensor accounts for
