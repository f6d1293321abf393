"""What the modules page (docs/{en,zh}/modules.md) teaches and the guides got wrong, pinned with real torch.

Each erratum in docs/data/errata/modules.yml has its marked test here. Tests marked `cuda` are skipped
on machines without a GPU and run on the GPU job.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

# ---- moving a module ---------------------------------------------------------------------------------------


def test_the_move_first_rule_is_in_the_docstrings_of_the_device_methods():
    # the page cites Module.cuda() (and xpu, ipu, mtia) for "move the model, then build the optimizer"
    for name in ("cuda", "xpu", "ipu", "mtia"):
        doc = " ".join(getattr(nn.Module, name).__doc__.split())
        assert "should be called before constructing" in doc and "optimizer" in doc, name


def test_module_to_replaces_buffers_and_keeps_parameters_only_where_it_can():
    # the page: the module itself changes; a parameter keeps its object when the conversion allows, a buffer never
    bn = nn.BatchNorm1d(3)
    weight, running_mean = bn.weight, bn.running_mean
    bn.to(torch.float64)
    assert bn.weight is weight and bn.running_mean is not running_mean
    bn.to("meta")  # no shallow copy between cpu and meta: a new Parameter
    assert bn.weight is not weight and bn.weight.device.type == "meta"


def test_module_to_takes_only_floating_point_or_complex_dtypes():
    # the page: a module's .to() takes a dtype too, but not every dtype its tensor counterpart takes
    assert torch.ones(2).to(torch.int64).dtype == torch.int64
    with pytest.raises(TypeError, match="only accepts floating point or complex dtypes"):
        nn.Linear(3, 1).to(torch.int64)


def test_a_tensors_to_returns_a_new_tensor_only_when_something_changes():
    # moving-a-module: a tensor's .to() gives a new tensor, or the tensor itself when device and dtype already match
    weight = nn.Linear(3, 1).weight
    assert weight.to(weight.device) is weight and weight.to(torch.float32) is weight
    assert weight.to("meta") is not weight and weight.to(torch.float64) is not weight


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


@pytest.mark.erratum("moving-parameters-one-by-one")
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


# ---- losses ------------------------------------------------------------------------------------------------


@pytest.mark.erratum("weighted-loss-does-not-adapt")
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


@pytest.mark.erratum("legacy-tensor-constructor-and-undefined-t")
def test_t_tensor_is_not_a_constructor():
    t = torch.tensor([1, 2, 3])  # what `t` is in the guide at that point
    assert not hasattr(t, "Tensor")
    target = torch.tensor([1, 0, 0, 1])
    assert target.dtype == torch.int64  # no .long() needed
    assert torch.equal(torch.Tensor([1, 0, 0, 1]).long(), target)


@pytest.mark.erratum("loss-called-with-builtin-input")
def test_loss_called_with_builtin_input_is_type_error():
    criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
    with pytest.raises(TypeError, match="must be Tensor"):
        criterion(input, torch.tensor([1, 0, 0, 1]))


# ---- more of the guides' claims, checked line by line ------------------------------------------------------


@pytest.mark.erratum("parameter-device-needs-no-data")
def test_parameter_has_its_own_device():
    # guide 003: net[0].weight.data.device
    net = nn.Sequential(nn.Linear(3, 1))
    weight = net[0].weight
    assert weight.device == weight.data.device == torch.device("cpu")  # .data adds nothing here
    assert type(weight.data) is torch.Tensor and not weight.data.requires_grad  # it steps outside autograd:
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        weight.mul_(2)  # autograd guards the parameter ...
    weight.data.mul_(2)  # ... but not changes made through .data


@pytest.mark.erratum("module-buffers-are-a-plain-dict")
def test_module_buffers_print_as_a_plain_dict():
    # guide 002, section 3: print(criterion._buffers) shows OrderedDict([('weight', tensor([1., 3.]))])
    criterion = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0]))
    assert type(criterion._buffers) is dict
    assert repr(criterion._buffers) == "{'weight': tensor([1., 3.])}"
    assert dict(criterion.named_buffers()) == {"weight": criterion.weight}  # the public way to list them


@pytest.mark.erratum("moving-only-one-side-fails")
def test_moving_only_the_model_or_only_the_data_fails():
    # guide 004, section 3.2: without moving them, model and data "still compute on the CPU"
    x = torch.ones(2, 3)
    assert nn.Linear(3, 1)(x).device == torch.device("cpu")  # neither moved: true
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        nn.Linear(3, 1).to("meta")(x)  # only the model moved (meta stands in for the GPU)
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        nn.Linear(3, 1)(x.to("meta"))  # only the data moved


@pytest.mark.erratum("mismatch-message-has-changed")
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
