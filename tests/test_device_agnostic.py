"""What the device-agnostic page (docs/{en,zh}/device-agnostic.md) teaches and the guides got wrong,
asserted on the installed PyTorch. Each erratum in docs/data/errata/device-agnostic.yml has its marked test here.
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


def test_a_dataloader_yields_the_device_its_dataset_gives_and_pinning_keeps_it_on_the_cpu():
    # device-agnostic.md#in-a-training-script: NumPy data gives CPU batches on every machine; a dataset of tensors
    # on another device gives batches there (the meta device stands in for a GPU here); pin_memory=True gives
    # CPU tensors in pinned memory (Tensor.pin_memory copies within host memory), or plain ones without a GPU.
    import numpy as np
    from torch.utils.data import DataLoader, TensorDataset

    from site_pages import DOCS

    data = np.arange(8, dtype=np.float32)
    assert next(iter(DataLoader(data, batch_size=4))).device == torch.device("cpu")
    on_meta = TensorDataset(torch.zeros(8, 2, device="meta"))
    assert next(iter(DataLoader(on_meta, batch_size=4)))[0].device == torch.device("meta")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # without an accelerator it warns that it cannot pin
        pinned = next(iter(DataLoader(data, batch_size=4, pin_memory=True)))
    assert pinned.device == torch.device("cpu")
    assert pinned.is_pinned() == torch.accelerator.is_available()
    # (what Tensor.pin_memory and the loader's pinning say: tests/data/citations.yml)
    for lang, words in (("en", "`pin_memory=True` does not change that"), ("zh", "`pin_memory=True` 也不改变这一点")):
        page = (DOCS / lang / "device-agnostic.md").read_text(encoding="utf-8")
        assert words in page and "(performance.md#pinned-memory)" in page, lang
        assert "whatever device its dataset's" not in page and "更准确地说" not in page, lang


# --- Hugging Face Accelerate (section #accelerate), as the installed release (requirements.txt) behaves ---

ACCELERATE_CHECK = '''
import torch
from accelerate import Accelerator
from torch import nn

accelerator = Accelerator(cpu=True, mixed_precision={precision!r}, gradient_accumulation_steps=4)
model = accelerator.prepare(nn.Sequential(nn.Linear(4, 4)))
inside = []
model[0].register_forward_hook(lambda module, args, out: inside.append(out.dtype))
out = model(torch.randn(2, 4))
print(accelerator.mixed_precision, inside[0], out.dtype, accelerator.scaler is not None)

# backward() divides by gradient_accumulation_steps
loss = model(torch.ones(1, 4)).float().sum()
accelerator.backward(loss)
mine = model[0].weight.grad.clone()
model.zero_grad()
model(torch.ones(1, 4)).float().sum().backward()
print(torch.allclose(4 * mine, model[0].weight.grad))
'''


@pytest.mark.parametrize(("precision", "expected"), [
    ("bf16", "bf16 torch.bfloat16 torch.float32 False\nTrue"),  # autocast inside, float32 out, no scaler
    ("fp16", "fp16 torch.float32 torch.float32 False\nTrue"),  # on the CPU: accepted, then ignored
])
def test_accelerate_mixed_precision_on_the_cpu(precision, expected):
    from snippet_runs import run_code

    run = run_code(ACCELERATE_CHECK.format(precision=precision))  # a fresh process: Accelerator's state is global
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == expected


def test_accelerate_retries_with_nine_tenths_of_the_batch_after_an_oom():
    from accelerate.utils import find_executable_batch_size

    tried = []

    @find_executable_batch_size(starting_batch_size=128)
    def train(batch_size):
        tried.append(batch_size)
        if batch_size > 100:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return batch_size

    assert train() == 92
    assert tried == [128, 115, 103, 92]  # int(0.9 * size) each time, not half


def test_accelerate_keeps_its_default_config_where_the_page_says():
    # that accelerate launch runs torchrun and passes its options as environment variables: tests/data/citations.yml
    from accelerate.commands.config import default_config_file

    assert default_config_file.endswith("huggingface/accelerate/default_config.yaml")
