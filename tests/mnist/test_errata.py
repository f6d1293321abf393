"""The errata of guide 004 that the MNIST page corrects (docs/data/errata/mnist.yml names each test), and the
page's count of the guide's loss.item() waits."""

from __future__ import annotations

import json
import re

import pytest
import torch
import train
from torch import nn

import benchmarks  # docs/hooks/benchmarks.py
from site_pages import DOCS, REPO


@pytest.mark.erratum("unflattened-linear-fails-on-mnist")
def test_unflattened_linear_fails_on_an_mnist_batch():
    batch = torch.zeros(32, 1, 28, 28)  # the guide's batch_size=32
    # torch 2.15 names the operation first on the CPU (2.14: the message began with "mat1")
    message = "addmm: mat1 and mat2 shapes cannot be multiplied (896x28 and 784x10)"
    with pytest.raises(RuntimeError, match="^" + re.escape(message) + "$"):
        nn.Linear(784, 10)(batch)
    assert train.build_model()(batch).shape == (32, 10)


@pytest.mark.erratum("cu111-install-line-is-obsolete")
def test_pinned_torch_is_a_current_cuda_build():
    """What this shows: the torch the site pins is built for CUDA 12 or later, and nothing here uses cu111.

    It cannot show from here (no network) that the cu111 index lacks current releases.
    """
    requirements = (REPO / "requirements.txt").read_text(encoding="utf-8")
    pinned = re.search(r"^torch==(\S+)", requirements, re.M).group(1)
    assert torch.__version__.split("+")[0] == pinned
    assert torch.version.cuda is not None, "the pinned torch should be the CUDA build"
    assert int(torch.version.cuda.split(".")[0]) >= 12
    for name in ("requirements.txt", "constraints.txt", "Makefile"):
        assert "cu111" not in (REPO / name).read_text(encoding="utf-8")


@pytest.mark.erratum("gpu-speeds-up-the-guides-example")
def test_records_show_the_gpu_losing_at_the_guides_batch_size():
    """The erratum gpu-speeds-up-the-guides-example, checked against the committed records.

    The guide's code runs eagerly, so the GPU side is its eager pipelines (not the graph-captured rung).
    """
    records = [json.loads(f.read_text(encoding="utf-8")) for f in (DOCS / "data" / "benchmarks").glob("*.json")]
    devices, _ = benchmarks.latest(records)
    shown = [r for rows in devices.values() for r in rows]
    at_64 = [r for r in shown if r["batch_size"] == 64]
    gpu = [r for r in at_64 if r["device_kind"] == "cuda" and r["pipeline"] not in train.CUDA_ONLY]
    cpu = [r for r in at_64 if r["device_kind"] == "cpu" and r["cpu_cores"] == 2]
    assert gpu and cpu
    fastest_gpu = min(r["median_seconds_per_epoch"] for r in gpu)
    assert fastest_gpu > min(r["median_seconds_per_epoch"] for r in cpu)
    # ... and a larger batch is what turns it: the GPU's resident time per epoch falls with the batch size
    resident = sorted((r for r in shown if r["device_kind"] == "cuda" and r["pipeline"] == "resident"),
                      key=lambda r: r["batch_size"])
    assert [r["batch_size"] for r in resident] == [64, 256, 1024]
    assert resident[-1]["median_seconds_per_epoch"] < resident[0]["median_seconds_per_epoch"] / 10


def test_the_guides_loss_item_waits_once_per_step_1875_times_an_epoch():
    """The page's count of `loss.item()` waits: one per step of the guide's loop (batch size 32)."""
    batch_size = 32
    steps = len(torch.utils.data.DataLoader(range(60_000), batch_size=batch_size))
    assert steps == 1875
    assert f"{steps:,} times per epoch" in (DOCS / "en" / "mnist.md").read_text(encoding="utf-8")
    assert f"每轮 {steps} 次" in (DOCS / "zh" / "mnist.md").read_text(encoding="utf-8")
    # the guide's own batch size and loop, where the guides are at hand (the page checks above need them not)
    seeds = REPO.parent / "shared" / "seeds"
    if not seeds.is_dir():
        pytest.skip("the source guides (../shared/seeds) are not beside this checkout")
    guide = next(seeds.glob("004*")).read_text(encoding="utf-8")
    assert f"batch_size={batch_size}," in guide and "loss.item()" in guide
