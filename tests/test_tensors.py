"""What the tensors page (docs/{en,zh}/tensors.md) teaches and the guides got wrong, pinned with real torch.

Each erratum in docs/data/errata/tensors.yml has its marked test here. Tests marked `cuda` or `multi_gpu`
are skipped on machines without (enough) GPUs and run on the GPU job; the meta device stands in for a
second device where the rule is the same on any machine.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

# ---- where a tensor lives ----------------------------------------------------------------------------------


@pytest.mark.erratum("get-device-works-on-cpu")
def test_get_device_is_minus_one_on_cpu():
    t = torch.tensor([1, 2, 3])
    assert t.get_device() == -1
    assert t.device == torch.device("cpu")
    assert not t.is_cuda


@pytest.mark.erratum("get-divice-typo")
def test_get_divice_does_not_exist():
    t = torch.tensor([1, 2, 3])
    assert not hasattr(t, "get_divice")
    assert callable(t.get_device)  # without () it is a bound method, not an index
    assert isinstance(t.get_device(), int)


@pytest.mark.erratum("tensor-and-module-have-no-gpu-versions")
def test_one_tensor_class_for_all_devices():
    cpu, meta = torch.ones(2), torch.ones(2, device="meta")
    assert type(cpu) is torch.Tensor
    assert type(meta) is torch.Tensor
    assert type(nn.Linear(3, 1)) is type(nn.Linear(3, 1, device="meta"))


# ---- moving and copying ------------------------------------------------------------------------------------


@pytest.mark.erratum("tensor-cuda-returns-self-when-already-there")
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


@pytest.mark.erratum("d2l-copy-example-copies-nothing")
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


@pytest.mark.erratum("cuda-without-index-is-current-device")
@pytest.mark.multi_gpu
def test_cuda_without_index_uses_current_device():
    t = torch.tensor([1, 2, 3])
    with torch.cuda.device(1):
        assert t.cuda().device == torch.device("cuda:1")
        assert t.cuda(0).device == torch.device("cuda:0")


@pytest.mark.erratum("cuda-device-keyword-zero-is-not-cuda")
@pytest.mark.multi_gpu
def test_cuda_device_zero_differs_from_default_after_set_device():
    t = torch.tensor([1, 2, 3])
    with torch.cuda.device(1):
        assert t.cuda(device=0).device != t.cuda().device


# ---- the same-device rule ----------------------------------------------------------------------------------


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


@pytest.mark.erratum("cpu-scalar-tensors-cross-devices", "same-device-rule-has-a-scalar-exception")
def test_cpu_scalar_tensor_mixes_with_other_devices():
    result = torch.ones(2, device="meta") + torch.tensor(2.0)
    assert result.device.type == "meta"
    with pytest.raises(RuntimeError):
        torch.ones(2, device="meta") + torch.ones(1)  # one element, but 1-D: not a scalar
    # not the only exception: CPU indices, and copy_ from another device
    x = torch.zeros(4, device="meta")
    assert x[torch.tensor([0, 2])].device.type == "meta"
    assert x.copy_(torch.arange(4.0)).device.type == "meta"


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


# ---- default devices and new tensors -----------------------------------------------------------------------


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


@pytest.mark.erratum("cuda-device-is-not-a-default-device")
@pytest.mark.cuda
def test_cuda_device_context_does_not_set_default_device():
    with torch.cuda.device(0):
        assert torch.ones(2).device == torch.device("cpu")
        assert torch.ones(2, device="cuda").device == torch.device("cuda:0")
        assert torch.get_default_device() == torch.device("cpu")
    with torch.device("cuda:0"):
        assert torch.ones(2).device == torch.device("cuda:0")


def test_new_and_like_keep_dtype_and_device():
    src = torch.empty(2, device="meta", dtype=torch.float16)
    for made in (src.new_full((3, 4), 9), src.new_zeros(3, 4), torch.ones_like(src), torch.zeros_like(src)):
        assert made.device.type == "meta" and made.dtype == torch.float16
    assert torch.ones_like(src, device="cpu").device.type == "cpu"


# ---- GPU memory --------------------------------------------------------------------------------------------


@pytest.mark.erratum("nvidia-smi-shows-more-than-the-tensors")
@pytest.mark.cuda
def test_gpu_memory_in_use_exceeds_the_tensors():
    # guide 003: a tensor on a GPU uses only that GPU's memory, "which nvidia-smi shows"
    x = torch.ones(2, 3, device="cuda")
    free, total = torch.cuda.mem_get_info()  # the driver's view, which nvidia-smi also reports
    assert torch.cuda.memory_allocated() >= x.nbytes
    assert torch.cuda.memory_reserved() >= 2 * 2**20 > x.nbytes  # the caching allocator takes whole blocks
    assert total - free > torch.cuda.memory_reserved()  # plus the CUDA context, which no tensor accounts for



# ---- #generators: a generator of your own ------------------------------------------------------------------


def _generators_section(lang: str) -> str:
    from site_pages import DOCS

    page = (DOCS / lang / "tensors.md").read_text(encoding="utf-8")
    return page.split("{ #generators }")[1].split("\n## ")[0].split("\n### ")[0]


def test_a_generator_of_your_own_is_made_for_a_device_and_defaults_to_the_cpu():
    from pathlib import Path

    # torch.Generator's docstring is attached in torch/_torch_docs.py
    docs = (Path(torch.__file__).parent / "_torch_docs.py").read_text(encoding="utf-8")
    assert "device (:class:`torch.device`, optional): the desired device for the generator." in docs
    assert torch.Generator(device="cpu").device == torch.device("cpu")
    torch.set_default_device("meta")  # the default device is not a generator's
    try:
        assert torch.Generator().device == torch.device("cpu")
    finally:
        torch.set_default_device(None)


def test_a_generator_of_the_wrong_device_type_is_refused_with_the_quoted_message():
    # the check every sampling kernel makes (ATen/core/Generator.h); device types print in lower case
    from pathlib import Path

    lib = Path(torch.__file__).parent
    header = (lib / "include" / "ATen" / "core" / "Generator.h").read_text(encoding="utf-8")
    assert ("\"Expected a '\", T::device_type(), \"' device type for generator but found '\", "
            "gen->device().type(), \"'\"") in header
    assert b"' device type for generator but found '" in (lib / "lib" / "libtorch_cpu.so").read_bytes()
    for lang in ("en", "zh"):
        section = _generators_section(lang)
        assert "`RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'`" in section, lang
        assert "`'mps'`" in section, lang


@pytest.mark.cuda
def test_a_cpu_generator_cannot_drive_cuda_sampling():
    with pytest.raises(RuntimeError, match=r"^Expected a 'cuda' device type for generator but found 'cpu'$"):
        torch.randn(3, device="cuda", generator=torch.Generator())


def test_cuda_manual_seed_seeds_the_current_gpu_and_manual_seed_all_every_gpu():
    assert "for the current GPU" in torch.cuda.manual_seed.__doc__
    assert "To seed all GPUs, use :func:`manual_seed_all`" in " ".join(torch.cuda.manual_seed.__doc__.split())
    assert "on all GPUs" in torch.cuda.manual_seed_all.__doc__
