"""snippets/mnist/train.py: end to end on real MNIST, its one-line errors, its data and its pipelines.

The page runs the script's refusals as real processes (missing data, resident-graph on a CPU) and
compares their exact output; these tests call main() and the functions behind it.
"""

from __future__ import annotations

import re
import sys

import pytest
import torch
import train
from torch import nn

from mnist_data import ensure_local_mnist
from snippet_runs import Run, run_snippet

LAST_LINE = re.compile(r"^loss (\d+\.\d{3}) · test accuracy (\d+\.\d)% · (\d+\.\d{2}) s/epoch \(median\)$")
HAS_CUDA = torch.cuda.is_available() and torch.cuda.device_count() > 0
CPU_PIPELINES = [p for p in train.PIPELINES if p not in train.CUDA_ONLY]
CPU_REFUSAL = "resident-graph replays a CUDA graph and needs a CUDA GPU; on cpu, use resident instead"


# ---- on real MNIST, as a reader runs it -----------------------------------------------------------------


@pytest.fixture(scope="module")
def real_runs() -> dict[str, Run]:
    """One epoch per pipeline on the real data set, run as `python snippets/mnist/train.py ...` runs it."""
    if ensure_local_mnist() is None:
        pytest.skip("no copy of MNIST at hand (../shared/data/mnist or .mnist)")
    device = train.pick_device("auto")  # what the script picks: on a GPU machine the graph rung runs too
    pipelines = [p for p in train.PIPELINES if train.unsupported(p, device) is None]
    # two at a time, one thread each: this model's ops are tiny, and CI machines are shared
    args = ("--epochs", "1", "--no-download", "--threads", "1")
    started = {p: run_snippet("snippets/mnist/train.py", *args, "--pipeline", p) for p in pipelines}
    return {p: run.result(timeout=600) for p, run in started.items()}


def test_every_pipeline_trains_and_reports(real_runs):
    for pipeline, run in real_runs.items():
        assert run.returncode == 0, f"{pipeline}: {run.stderr[-3000:]}"
        lines = run.stdout.splitlines()
        assert lines[0].startswith(f"{pipeline} on "), lines
        assert LAST_LINE.match(lines[-1]), lines[-1]
        assert "Traceback" not in run.stderr


def test_pipelines_agree_on_accuracy(real_runs):
    accuracy = {p: float(LAST_LINE.match(r.stdout.splitlines()[-1]).group(2)) for p, r in real_runs.items()}
    assert max(accuracy.values()) - min(accuracy.values()) <= 0.5, accuracy
    assert min(accuracy.values()) > 85, accuracy  # one epoch of a linear model: about 90 %


# ---- bad input: one line, non-zero exit, no traceback -------------------------------------------------


BAD_ARGUMENTS = {
    "epochs-zero": (["--epochs", "0"], "argument --epochs: must be at least 1, got 0"),
    "epochs-negative": (["--epochs", "-3"], "argument --epochs: must be at least 1, got -3"),
    "batch-size-zero": (["--batch-size", "0"], "argument --batch-size: must be at least 1, got 0"),
    "batch-size-word": (["--batch-size", "many"], "argument --batch-size: expected a whole number, got 'many'"),
    "unknown-pipeline": (["--pipeline", "fast"], "argument --pipeline: invalid choice: 'fast'"),
    "unknown-device": (["--device", "gpu"], "argument --device: unknown device 'gpu'"),
    "bad-device-index": (["--device", "cuda:x"], "argument --device: unknown device 'cuda:x'"),
    "too-high-gpu-index": (["--device", "cuda:63"], "argument --device: cuda:63 was asked for, but"),
    "meta-device": (["--device", "meta"], "argument --device: meta is not usable here"),
}


@pytest.mark.parametrize(("argv", "message"), BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_bad_arguments_give_one_line(argv, message, run_main):
    code, out, err = run_main(train, argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(f"train.py: error: {message}"), err


@pytest.mark.skipif(HAS_CUDA, reason="shows the message of a machine without a CUDA GPU")
def test_cuda_without_a_gpu_gives_one_line(run_main):
    code, _, err = run_main(train, ["--device", "cuda"])
    assert code == 2
    assert err == "train.py: error: argument --device: cuda was asked for, but no CUDA GPU is usable here; " \
                  "use --device cpu or auto\n"


def test_missing_data_without_download_gives_one_line(tmp_path, run_main):
    code, out, err = run_main(train, ["--data-dir", str(tmp_path), "--no-download"])
    raw = tmp_path / "MNIST" / "raw"
    assert code == 1 and out == ""
    assert not (tmp_path / "MNIST").exists()  # looking creates nothing
    assert err == (f"train.py: MNIST not found in {raw}; drop --no-download to fetch it, or put "
                   "train-images-idx3-ubyte and the three other files there\n")


def test_failed_download_gives_one_line(tmp_path, monkeypatch, run_main):
    from torchvision import datasets

    # port 9 (discard) on this machine: refused at once, so the test behaves the same with or without network
    monkeypatch.setattr(datasets.MNIST, "mirrors", ["http://127.0.0.1:9/"])
    code, out, err = run_main(train, ["--data-dir", str(tmp_path)])
    assert code == 1 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"train.py: could not download MNIST into {tmp_path / 'MNIST' / 'raw'} (")
    assert "--no-download" in err


def test_graph_rung_refuses_on_the_cpu_in_one_line(tiny_mnist, run_main):
    argv = ["--device", "cpu", "--pipeline", "resident-graph", "--data-dir", str(tiny_mnist), "--no-download"]
    assert run_main(train, argv) == (2, "", f"train.py: error: argument --pipeline: {CPU_REFUSAL}\n")
    with pytest.raises(ValueError, match="needs a CUDA GPU"):
        train.run("resident-graph", torch.device("cpu"), 1, 8, None, None)


# ---- loading and training, on the tiny MNIST ------------------------------------------------------------


def test_loader_reads_idx_files(tiny_mnist):
    train_set = train.load_mnist(tiny_mnist, train=True)
    test_set = train.load_mnist(tiny_mnist, train=False)
    assert (len(train_set), len(test_set)) == (40, 20)
    image, label = train_set[3]
    assert image.shape == (1, 28, 28) and image.dtype == torch.float32
    assert image.min() >= -1 and image.max() <= 1
    assert label == 3
    # the resident copy holds exactly what the per-image transform produces
    images, labels = train.to_resident(train_set, torch.device("cpu"))
    assert torch.equal(images[3], image) and labels[3] == label


def test_every_pipeline_sees_the_same_order(tiny_mnist):
    train_set = train.load_mnist(tiny_mnist, train=True)
    images, labels = train.to_resident(train_set, torch.device("cpu"))
    order = train.EpochOrder(len(train_set), torch.Generator().manual_seed(5))
    resident = train.ResidentBatches(images, labels, 8, torch.Generator().manual_seed(5))
    loader = train.make_loader(train_set, 8, order, tuned=False, device=torch.device("cpu"))
    for epoch in range(2):  # each epoch draws a new permutation from the same generator
        from_loader = torch.cat([y for _, y in loader])
        from_resident = torch.cat([y for _, y in resident])
        assert torch.equal(from_loader, from_resident), epoch


def test_pipelines_give_identical_results_on_the_cpu(tiny_mnist):
    train_set = train.load_mnist(tiny_mnist, train=True)
    test_set = train.load_mnist(tiny_mnist, train=False)
    cpu = torch.device("cpu")
    results = [train.run(p, cpu, 2, 8, train_set, test_set, seed=3, progress=False) for p in CPU_PIPELINES]
    # same weights, same batches in the same order: the same training, up to how the loss is summed
    assert [r.loss for r in results] == pytest.approx([results[0].loss] * len(results), rel=1e-5)
    assert len({r.accuracy for r in results}) == 1
    assert results[1].num_workers >= 1 and results[2].num_workers == 0


def test_main_on_tiny_data_prints_the_summary_line(tiny_mnist, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["snippets/mnist/train.py"])
    train.main(["--data-dir", str(tiny_mnist), "--no-download", "--batch-size", "8", "--pipeline", "resident",
                "--epochs", "2", "--device", "cpu"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "resident on cpu: 2 epoch(s) of 5 batches of 8"
    assert LAST_LINE.match(out[-1]), out[-1]


# ---- the graph-captured rung ----------------------------------------------------------------------------


def _fresh(seed: int = 0) -> tuple[nn.Module, torch.optim.Optimizer]:
    torch.manual_seed(seed)
    model = train.build_model()
    return model, torch.optim.SGD(model.parameters(), lr=train.LEARNING_RATE, momentum=0.9)


def test_the_static_step_trains_exactly_like_resident(tiny_mnist):
    """GraphedSteps without capture runs the step the graph records: padded last batch, weighted loss."""
    images, labels = train.to_resident(train.load_mnist(tiny_mnist, train=True), torch.device("cpu"))
    graphed_model, graphed_optimizer = _fresh()
    graphed = train.GraphedSteps(graphed_model, graphed_optimizer, images, labels, 16, torch.Generator().manual_seed(5))
    model, optimizer = _fresh()
    batches = train.ResidentBatches(images, labels, 16, torch.Generator().manual_seed(5))
    assert len(labels) % 16, "the tiny set must leave a shorter last batch"
    for _ in range(3):
        assert graphed.epoch() == pytest.approx(train.train_epoch(model, batches, optimizer, torch.device("cpu")),
                                                rel=1e-6)
    for mine, theirs in zip(graphed_model.parameters(), model.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs)
    assert torch.equal(graphed.weight, torch.ones(16))  # the padding weights are reset after the epoch


def test_rewind_undoes_the_warm_up_steps(tiny_mnist):
    images, labels = train.to_resident(train.load_mnist(tiny_mnist, train=True), torch.device("cpu"))
    model, optimizer = _fresh()
    start = [p.detach().clone() for p in model.parameters()]
    graphed = train.GraphedSteps(model, optimizer, images, labels, 16, torch.Generator().manual_seed(5))
    for _ in range(3):  # what capture() does before recording: real steps that move the weights
        graphed.step()
    assert not torch.equal(next(model.parameters()), start[0])
    train.rewind(model, optimizer, start)
    graphed.total.zero_()
    fresh_model, fresh_optimizer = _fresh()
    fresh = train.GraphedSteps(fresh_model, fresh_optimizer, images, labels, 16, torch.Generator().manual_seed(5))
    assert graphed.epoch() == fresh.epoch()  # bit for bit: a zero momentum buffer is a first step's
    for mine, theirs in zip(model.parameters(), fresh_model.parameters(), strict=True):
        assert torch.equal(mine, theirs)


# ---- the hand-written step --------------------------------------------------------------------------------


@pytest.mark.parametrize("batch", [16, 40])  # a shorter last batch; one whole-set batch
def test_the_hand_written_step_trains_like_resident(tiny_mnist, batch):
    """ManualSteps computes autograd's gradient and torch.optim.SGD's update by hand: the same weights after three
    epochs, up to rounding, and the same mean losses."""
    images, labels = train.to_resident(train.load_mnist(tiny_mnist, train=True), torch.device("cpu"))
    manual_model, manual_optimizer = _fresh()
    manual = train.ManualSteps(manual_model, manual_optimizer, images, labels, batch, torch.Generator().manual_seed(5))
    model, optimizer = _fresh()
    batches = train.ResidentBatches(images, labels, batch, torch.Generator().manual_seed(5))
    for _ in range(3):
        assert manual.epoch() == pytest.approx(train.train_epoch(model, batches, optimizer, torch.device("cpu")),
                                               rel=1e-5)
    for mine, theirs in zip(manual_model.parameters(), model.parameters(), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-6)
    assert not any(p.grad is not None for p in manual_model.parameters())  # no autograd was involved


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU: compares the hand-written step on the GPU with resident")
def test_the_hand_written_step_trains_like_resident_on_a_gpu(tiny_mnist):
    train_set = train.load_mnist(tiny_mnist, train=True)
    test_set = train.load_mnist(tiny_mnist, train=False)
    cuda = torch.device("cuda")
    resident = train.run("resident", cuda, 3, 16, train_set, test_set, seed=3, progress=False)
    manual = train.run("resident-manual", cuda, 3, 16, train_set, test_set, seed=3, progress=False)
    assert manual.loss == pytest.approx(resident.loss, rel=1e-4)
    assert manual.accuracy == resident.accuracy


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU: captures and replays a CUDA graph")
def test_graph_rung_trains_like_resident_on_a_gpu(tiny_mnist):
    train_set = train.load_mnist(tiny_mnist, train=True)
    test_set = train.load_mnist(tiny_mnist, train=False)
    cuda = torch.device("cuda")
    resident = train.run("resident", cuda, 3, 16, train_set, test_set, seed=3, progress=False)
    graphed = train.run("resident-graph", cuda, 3, 16, train_set, test_set, seed=3, progress=False)
    assert graphed.loss == pytest.approx(resident.loss, rel=1e-4)
    assert graphed.accuracy == resident.accuracy
    assert len(graphed.epoch_seconds) == 3
