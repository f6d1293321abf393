"""What docs/{en,zh}/performance.md (Transfers and waiting) teaches and the guides got wrong, asserted on the
installed PyTorch: reading the loss, synchronisation and the GIL, pinned memory and waiting copies. CPU tests run
everywhere; the CUDA ones run on the GPU job."""

from __future__ import annotations

import re
import runpy
import threading
import time

import pytest
import torch
from torch import nn

from site_pages import DOCS, LANGUAGES, SNIPPETS
from snippet_runs import run_snippet


@pytest.fixture(scope="module")
def synchronizations():
    """sync_points.py's count of the times a step waits for the GPU (loading the snippet prints its table too)."""
    return runpy.run_path(str(SNIPPETS / "performance" / "sync_points.py"))["synchronizations"]


class TickCounter:
    """A Python thread that counts as fast as it can, giving the GIL back after every tick.

    While the main thread holds the GIL, the counter cannot tick at all; while the main thread waits
    inside PyTorch without the GIL, it ticks freely.
    """

    def __init__(self):
        self.ticks = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.ticks += 1
            time.sleep(0)  # releases the GIL

    def __enter__(self):
        self._thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _train(read_every_step: bool) -> list[float]:
    """Three epochs of a small classifier; the mean loss per epoch, read in one of the two ways."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(512, 20, generator=g)
    y = (x[:, :10].sum(dim=1) > 0).long()
    model = nn.Linear(20, 2)
    nn.init.zeros_(model.weight)
    nn.init.zeros_(model.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    means = []
    for _ in range(3):
        as_float, on_device = 0.0, torch.zeros(())
        for xb, yb in zip(x.split(64), y.split(64), strict=True):
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if read_every_step:
                as_float += loss.item()
            else:
                on_device += loss.detach()
        means.append(as_float / 8 if read_every_step else on_device.item() / 8)
    return means


@pytest.mark.erratum("loss-item-every-step")
def test_reading_the_loss_every_step_changes_no_result():
    # guide 004: running_loss += loss.item() on every step
    every_step, once = _train(read_every_step=True), _train(read_every_step=False)
    assert every_step == pytest.approx(once, rel=1e-6)
    assert every_step[-1] < every_step[0]


@pytest.mark.cuda
def test_reading_the_loss_every_step_synchronises_every_step(synchronizations):
    loss = torch.randn(64, device="cuda").pow(2).mean()
    torch.cuda.synchronize()
    running = torch.zeros((), device="cuda")
    assert synchronizations(lambda: loss.item()) == 1  # .item(): one wait for the GPU, every time it is called
    assert synchronizations(lambda: running.add_(loss.detach())) == 0  # accumulating on the device: none


@pytest.mark.erratum("data-loading-differs-with-a-gpu")
def test_data_loading_changes_with_a_gpu():
    # guide 004, section 2.2: data loading is the same for CPU and GPU
    data = torch.utils.data.TensorDataset(torch.ones(4, 2))
    loader = torch.utils.data.DataLoader(data, batch_size=2, pin_memory=True)
    if torch.cuda.is_available():
        (batch,) = next(iter(loader))
        assert batch.is_pinned()  # ready for batch.to("cuda", non_blocking=True)
    else:
        with pytest.warns(UserWarning, match="pin_memory"):
            (batch,) = next(iter(loader))
        assert not batch.is_pinned()  # the setting only means something with a GPU


@pytest.mark.erratum("logging-loss-is-a-sync-not-the-gil")
def test_torch_releases_the_gil_while_it_computes():
    # guide 003: logging a GPU loss "triggers the GIL" so that all GPUs block
    a = torch.randn(2000, 2000)
    with TickCounter() as counter:
        before = counter.ticks
        a @ a  # one long call into PyTorch
        during = counter.ticks - before
    assert during > 100  # another Python thread ran meanwhile: PyTorch did not hold the GIL


@pytest.mark.cuda
def test_item_waits_for_the_gpu_without_holding_the_gil(synchronizations):
    x = torch.ones((), device="cuda")
    torch.cuda.synchronize()
    with TickCounter() as counter:
        torch.cuda._sleep(1_000_000_000)  # queue roughly half a second or more of GPU work; returns at once
        y = x + 1  # queued behind it
        before, start = counter.ticks, time.perf_counter()
        value = y.item()  # must wait for both
        waited, during = time.perf_counter() - start, counter.ticks - before
    assert value == 2.0
    assert waited > 0.05  # .item() is a synchronisation: it waited for the queued GPU work
    assert during > 100  # ... and meanwhile another Python thread ran: the GIL was released
    assert synchronizations(lambda: y.item()) == 1


@pytest.mark.cuda
def test_copies_to_the_gpu_wait_unless_pinned_and_non_blocking():
    # the performance page and the loss-item-every-step erratum: blocking copies wait every time; the
    # sync debug mode reports them, but not whatever the driver waits for on a pageable non-blocking copy
    result = run_snippet("snippets/performance/copy_waits.py").result(timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    line = re.compile(r"(.+?) +(waits|returns at once), (reported|not reported)")
    seen = {m[1]: (m[2], m[3]) for m in map(line.fullmatch, result.stdout.splitlines()) if m}
    assert len(seen) == 4, result.stdout
    assert seen["batch.to('cuda')"] == ("waits", "reported")
    assert seen["pinned.to('cuda')"] == ("waits", "reported")
    assert seen["pinned.to('cuda', non_blocking=True)"] == ("returns at once", "not reported")
    assert seen["batch.to('cuda', non_blocking=True)"][1] == "not reported"


@pytest.mark.no_cuda
def test_without_a_gpu_synchronize_and_pinning_raise():
    for call in (torch.accelerator.synchronize, torch.cuda.synchronize, lambda: torch.ones(2).pin_memory()):
        with pytest.raises(RuntimeError):
            call()
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.ones(4, 2)), batch_size=2, pin_memory=True
    )
    with pytest.warns(UserWarning, match="pin_memory"):
        (batch,) = next(iter(loader))
    assert not batch.is_pinned()


def test_a_non_blocking_copy_is_asynchronous_to_the_host_and_overlaps_kernels_only_from_a_copy_stream():
    # performance.md#pinned-memory and #copies-that-wait: the copy only frees the host (Tensor.to's docstring,
    # tests/data/citations.yml), so both sections send readers who want it beside kernels to a copy stream
    for lang in LANGUAGES:
        page = (DOCS / lang / "performance.md").read_text(encoding="utf-8")
        for anchor in ("pinned-memory", "copies-that-wait"):
            section = page.split(f"{{ #{anchor} }}")[1].split("\n#")[0]
            assert "(streams.md#overlap-copy)" in section, (lang, anchor)
        assert "overlaps the copy with the GPU's work" not in page and "让复制与 GPU 的计算重叠" not in page, lang
