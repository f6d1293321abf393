"""What docs/{en,zh}/bigger-models.md (Fitting a bigger model) says, asserted on the installed PyTorch:
gradient accumulation, activation checkpointing, inference mode, the meta device and mmap loading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def test_accumulating_without_dividing_gives_steps_times_the_gradient():
    torch.manual_seed(0)
    model = nn.Linear(20, 1)
    inputs, targets = torch.randn(32, 20), torch.randn(32, 1)
    nn.functional.mse_loss(model(inputs), targets).backward()
    full = model.weight.grad.clone()
    model.zero_grad()
    for x, y in zip(inputs.chunk(4), targets.chunk(4), strict=True):
        nn.functional.mse_loss(model(x), y).backward()
    torch.testing.assert_close(model.weight.grad, 4 * full)


def test_checkpoint_without_use_reentrant_warns_and_runs_the_reentrant_variant():
    block = nn.Linear(4, 4)
    with pytest.warns(UserWarning) as caught:
        checkpoint(block, torch.randn(2, 4))  # an input without requires_grad: only reentrant complains
    messages = [str(w.message) for w in caught]
    # torch 2.15 says "In a future release" (2.14 said "Starting in PyTorch 2.9", which had passed)
    assert any("use_reentrant parameter should be passed explicitly" in m and "In a future release, calling "
               "checkpoint without use_reentrant will raise an exception" in m for m in messages)
    assert any("None of the inputs have requires_grad=True" in m for m in messages)
    # bigger-models.md#activation-checkpointing: earlier releases named a version ("In version 2.5 we will raise",
    # later "Starting in PyTorch 2.9", in public copies of torch/utils/checkpoint.py); 2.15.0's names none
    (reentrant,) = [m for m in messages if "use_reentrant parameter" in m]
    assert re.search(r"\b2\.\d", reentrant) is None, reentrant
    for lang in ("en", "zh"):
        page = (Path(__file__).parent.parent / "docs" / lang / "bigger-models.md").read_text(encoding="utf-8")
        assert "2.5" in page.split("{ #activation-checkpointing }")[1].split("\n## ")[0], lang


def test_loading_into_meta_without_assign_is_a_no_op_with_a_warning():
    with torch.device("meta"):
        model = nn.Linear(4, 2)
    with pytest.warns(UserWarning, match="which is a no-op.*assign=True"):
        model.load_state_dict(nn.Linear(4, 2).state_dict())
    assert model.weight.is_meta


def test_assign_keeps_requires_grad_and_asks_for_the_optimizer_afterwards():
    with torch.device("meta"):
        model = nn.Linear(4, 2)
    model.load_state_dict({k: v.detach() for k, v in nn.Linear(4, 2).state_dict().items()}, assign=True)
    assert model.weight.requires_grad and not model.weight.is_meta


@pytest.mark.skipif(not Path("/proc/self/maps").is_file(), reason="reads Linux's /proc/self/maps")
def test_mmap_load_maps_the_file_instead_of_reading_it(tmp_path):
    mapped, read = tmp_path / "mapped.pt", tmp_path / "read.pt"
    for path in (mapped, read):
        torch.save(nn.Linear(256, 256).state_dict(), path)
    state = torch.load(mapped, mmap=True, weights_only=True)
    copy = torch.load(read, weights_only=True)
    maps = Path("/proc/self/maps").read_text()
    assert str(mapped) in maps and str(read) not in maps
    del state, copy
