"""The MNIST page: train.py end to end, its error messages, bench.py's records and their rendering."""

from __future__ import annotations

import importlib
import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import torch
from mkdocs.exceptions import PluginError
from torch import nn

import benchmarks  # docs/hooks/benchmarks.py
from conftest import copy_of_repo, mkdocs_build
from docs_pages import DOCS, REPO, SNIPPETS
from mnist_data import ensure_local_mnist

sys.path.insert(0, str(SNIPPETS / "mnist"))  # as when the scripts run: their folder comes first
train = importlib.import_module("train")
bench = importlib.import_module("bench")

TRAIN = "snippets/mnist/train.py"
SCHEMA = json.loads((DOCS / "data" / "benchmark.schema.json").read_text(encoding="utf-8"))
RECORDS = sorted((DOCS / "data" / "benchmarks").glob("*.json"))
LAST_LINE = re.compile(r"^loss (\d+\.\d{3}) · test accuracy (\d+\.\d)% · (\d+\.\d{2}) s/epoch \(median\)$")
HAS_CUDA = torch.cuda.is_available() and torch.cuda.device_count() > 0
H100_RUN = REPO.parent / "shared" / "gpu-runs" / "2026-11-22-h100"
H100_RECORDS = sorted((DOCS / "data" / "benchmarks").glob("2026-11-22_cuda_nvidia-h100-80gb-hbm3_*.json"))
CPU_PIPELINES = [p for p in train.PIPELINES if p not in train.CUDA_ONLY]


# ---- errata -----------------------------------------------------------------------------------------


def test_unflattened_linear_fails_on_an_mnist_batch():
    batch = torch.zeros(32, 1, 28, 28)  # the guide's batch_size=32
    with pytest.raises(RuntimeError, match=re.escape("mat1 and mat2 shapes cannot be multiplied (896x28 and 784x10)")):
        nn.Linear(784, 10)(batch)
    assert train.build_model()(batch).shape == (32, 10)


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


# ---- train.py on real MNIST ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_runs() -> dict[str, subprocess.CompletedProcess]:
    """One epoch per pipeline on the real data set, as a reader runs the script."""
    if ensure_local_mnist() is None:
        pytest.skip("no copy of MNIST at hand (../shared/data/mnist or .mnist)")
    runs = {}
    device = train.pick_device("auto")  # what the script picks: on a GPU machine the graph rung runs too
    for pipeline in (p for p in train.PIPELINES if train.unsupported(p, device) is None):
        # one thread per operation: this model's ops are tiny, and CI machines are shared
        command = [sys.executable, TRAIN, "--epochs", "1", "--pipeline", pipeline, "--no-download", "--threads", "1"]
        runs[pipeline] = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    return runs


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


def _main(module, argv, monkeypatch, capsys) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", [f"snippets/mnist/{module.__name__}.py"])  # argparse names the program
    with pytest.raises(SystemExit) as exit_info:
        module.main(argv)
    out, err = capsys.readouterr()
    code = exit_info.value.code
    if isinstance(code, str):  # sys.exit("message") prints it to stderr and exits with 1
        err, code = err + code + "\n", 1
    return code, out, err


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
def test_bad_arguments_give_one_line(argv, message, monkeypatch, capsys):
    code, out, err = _main(train, argv, monkeypatch, capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(f"train.py: error: {message}"), err


@pytest.mark.skipif(HAS_CUDA, reason="shows the message of a machine without a CUDA GPU")
def test_cuda_without_a_gpu_gives_one_line(monkeypatch, capsys):
    code, _, err = _main(train, ["--device", "cuda"], monkeypatch, capsys)
    assert code == 2
    assert err == "train.py: error: argument --device: cuda was asked for, but no CUDA GPU is usable here; " \
                  "use --device cpu or auto\n"


def test_missing_data_without_download_gives_one_line(tmp_path, monkeypatch, capsys):
    code, out, err = _main(train, ["--data-dir", str(tmp_path), "--no-download"], monkeypatch, capsys)
    raw = tmp_path / "MNIST" / "raw"
    assert code == 1 and out == ""
    assert not (tmp_path / "MNIST").exists()  # looking creates nothing
    assert err == (f"train.py: MNIST not found in {raw}; drop --no-download to fetch it, or put "
                   "train-images-idx3-ubyte and the three other files there\n")


def test_failed_download_gives_one_line(tmp_path, monkeypatch, capsys):
    from torchvision import datasets

    # port 9 (discard) on this machine: refused at once, so the test behaves the same with or without network
    monkeypatch.setattr(datasets.MNIST, "mirrors", ["http://127.0.0.1:9/"])
    code, out, err = _main(train, ["--data-dir", str(tmp_path)], monkeypatch, capsys)
    assert code == 1 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"train.py: could not download MNIST into {tmp_path / 'MNIST' / 'raw'} (")
    assert "--no-download" in err


def test_a_real_process_prints_no_traceback(tmp_path):
    command = [sys.executable, TRAIN, "--no-download", "--data-dir", str(tmp_path)]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr, result.stderr


# ---- loading, on a few images written by the test -----------------------------------------------------


def write_idx(root: Path, n_train: int = 40, n_test: int = 20) -> Path:
    """A tiny MNIST in root/MNIST/raw, in the IDX format of the real files."""
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    gen = torch.Generator().manual_seed(1)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        images = torch.randint(0, 256, (n, 28, 28), dtype=torch.uint8, generator=gen)
        labels = torch.arange(n, dtype=torch.uint8) % 10
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(struct.pack(">IIII", 2051, n, 28, 28)
                                                          + images.numpy().tobytes())
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, n) + labels.numpy().tobytes())
    return root


@pytest.fixture
def tiny_mnist(tmp_path) -> Path:
    return write_idx(tmp_path / "data")


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
    assert [r.loss for r in results] == pytest.approx([results[0].loss] * 3, rel=1e-5)
    assert len({r.accuracy for r in results}) == 1
    assert results[1].num_workers >= 1 and results[2].num_workers == 0


def test_main_on_tiny_data_prints_the_summary_line(tiny_mnist, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [TRAIN])
    train.main(["--data-dir", str(tiny_mnist), "--no-download", "--batch-size", "8", "--pipeline", "resident",
                "--epochs", "2", "--device", "cpu"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "resident on cpu: 2 epoch(s) of 5 batches of 8"
    assert LAST_LINE.match(out[-1]), out[-1]


# ---- bench.py and its records --------------------------------------------------------------------------


@pytest.fixture
def bench_records(tiny_mnist, tmp_path, monkeypatch, capsys) -> tuple[list[Path], str]:
    out = tmp_path / "records"
    monkeypatch.setattr(sys, "argv", ["snippets/mnist/bench.py"])
    bench.main(["--device", "cpu", "--pipelines", "dataloader", "resident", "--epochs", "1", "--batch-size", "8",
                "--data-dir", str(tiny_mnist), "--no-download", "--out", str(out)])
    return sorted(out.glob("*.json")), capsys.readouterr().out


def test_bench_writes_schema_valid_records(bench_records):
    files, summary = bench_records
    assert len(files) == 2
    for file in files:
        record = json.loads(file.read_text(encoding="utf-8"))
        jsonschema.validate(record, SCHEMA)
        device = re.sub("[^a-z0-9]+", "-", record["device_name"].lower()).strip("-")
        assert file.name == f"{record['date'][:10]}_cpu_{device}_{record['pipeline']}_bs8.json"
        assert record["epochs"] == len(record["seconds_per_epoch"]) == 1
        assert record["warmup_epochs"] == len(record["warmup_seconds"]) == 1
        assert record["train_images"] == 40
    assert len(summary.splitlines()) == 1 + len(files)  # a header, then one line per run


def test_bench_writes_nothing_into_the_site_during_tests():
    before = sorted(p.name for p in (DOCS / "data" / "benchmarks").glob("*.json"))
    assert [p.name for p in RECORDS] == before  # the tests above wrote to tmp folders only


def _valid_record() -> dict:
    return {
        "schema_version": 1, "date": "2026-05-10T12:03:01Z", "device_kind": "cpu", "device_name": "Some CPU",
        "cpu_cores": 2, "torch_threads": 2, "load_average": 0.5, "torch_version": "2.14.1+cu130",
        "torch_cuda_version": "13.0", "torchvision_version": "0.29.1+cu130", "python_version": "3.11.7",
        "commit": "0123456789abcdef0123456789abcdef01234567", "commit_dirty": False, "pipeline": "resident",
        "batch_size": 64, "epochs": 3, "warmup_epochs": 1, "num_workers": 0, "seed": 0, "train_images": 60000,
        "warmup_seconds": [0.5], "seconds_per_epoch": [0.3, 0.31, 0.32], "median_seconds_per_epoch": 0.31,
        "setup_seconds": 0.2, "images_per_second": 193548.4, "final_loss": 0.41, "test_accuracy": 90.5,
    }


BROKEN = {
    "missing-date": (lambda r: r.pop("date"), "date"),
    "accuracy-as-text": (lambda r: r.update(test_accuracy="90.5"), "test_accuracy"),
    "accuracy-over-100": (lambda r: r.update(test_accuracy=190.5), "test_accuracy"),
    "unknown-pipeline": (lambda r: r.update(pipeline="fast"), "pipeline"),
    "short-commit": (lambda r: r.update(commit="0123abc"), "commit"),
    "date-not-iso": (lambda r: r.update(date="10/05/2026"), "date"),
    "negative-epoch-time": (lambda r: r.update(seconds_per_epoch=[0.3, -1]), "seconds_per_epoch.1"),
    "extra-field": (lambda r: r.update(gpu="yes"), "gpu"),
}


def test_the_schema_accepts_a_valid_record():
    jsonschema.validate(_valid_record(), SCHEMA)


@pytest.mark.parametrize(("breakage", "field"), BROKEN.values(), ids=BROKEN.keys())
def test_the_schema_and_the_hook_reject_a_malformed_record(breakage, field, tmp_path):
    record = _valid_record()
    breakage(record)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, SCHEMA)
    (tmp_path / "broken.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(PluginError) as error:
        benchmarks.load_records(tmp_path, DOCS / "data" / "benchmark.schema.json")
    assert f"broken.json: field '{field}'" in str(error.value)


def test_the_hook_rejects_bad_json(tmp_path):
    (tmp_path / "cut.json").write_text('{"date": "2026-05-10T', encoding="utf-8")
    with pytest.raises(PluginError, match=r"cut\.json: not valid JSON"):
        benchmarks.load_records(tmp_path, DOCS / "data" / "benchmark.schema.json")


def test_build_fails_on_a_malformed_record(tmp_path):
    copy = copy_of_repo(tmp_path / "repo")
    record = _valid_record()
    del record["test_accuracy"]
    (copy / "docs" / "data" / "benchmarks" / "2026-05-10_cpu_broken_resident_bs64.json").write_text(
        json.dumps(record), encoding="utf-8")
    result = mkdocs_build(tmp_path / "site", cwd=copy)
    assert result.returncode != 0
    assert ("docs/data/benchmarks/2026-05-10_cpu_broken_resident_bs64.json: field 'test_accuracy': "
            "'test_accuracy' is a required property") in result.stderr, result.stderr[-3000:]


# ---- rendering ---------------------------------------------------------------------------------------------


def _record(**changes) -> dict:
    return {**_valid_record(), **changes}


def test_render_without_gpu_records_says_so():
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=10.0), _record()]
    sentences = {"en": "No GPU measurement has been published yet", "zh": "目前还没有发布任何 GPU 测量结果"}
    for lang, sentence in sentences.items():
        text = benchmarks.render(records, lang)
        assert sentence in text
        assert "<svg" in text and "currentColor" in text
    en = benchmarks.render(records, "en")
    assert "**32.3× faster**" in en  # 10.0 / 0.31, computed from the records
    assert "pipelines **agree within 0.5 points**" in en


def test_render_compares_the_tuned_loader_with_the_plain_one():
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=8.0),
               _record(pipeline="dataloader-tuned", median_seconds_per_epoch=12.0)]
    assert "the tuned DataLoader takes 12.00 s per epoch against 8.00 s for the plain one: **1.5× slower**" \
        in benchmarks.render(records, "en")
    records[1]["median_seconds_per_epoch"] = 4.0
    assert "**2.0× faster**" in benchmarks.render(records, "en")


def test_render_with_a_gpu_record_shows_it_and_drops_the_note():
    gpu = _record(device_kind="cuda", device_name="NVIDIA H100 80GB HBM3")
    text = benchmarks.render([_record(), gpu], "en")
    assert "NVIDIA H100 80GB HBM3 (cuda; host: 2 CPU cores, 2 thread(s) per op)" in text
    assert "No GPU measurement" not in text


def test_render_reports_disagreeing_accuracies():
    records = [_record(pipeline="dataloader", test_accuracy=91.0), _record(test_accuracy=90.2)]
    assert "do **not** agree within 0.5 points" in benchmarks.render(records, "en")
    assert "**没有**在 0.5 个百分点之内一致" in benchmarks.render(records, "zh")


def test_render_keeps_only_the_latest_record_per_configuration():
    old = _record(date="2026-01-01T00:00:00Z", median_seconds_per_epoch=9.99)
    text = benchmarks.render([old, _record()], "en")
    assert "9.99" not in text and "1 older record(s)" in text


# ---- the committed records and the built page ---------------------------------------------------------


def test_committed_records_are_schema_valid():
    assert RECORDS, "no benchmark record committed in docs/data/benchmarks/"
    for file in RECORDS:
        jsonschema.validate(json.loads(file.read_text(encoding="utf-8")), SCHEMA)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_built_page_shows_the_records_with_provenance(built_site, lang):
    page = built_site / ("" if lang == "en" else "zh") / "mnist" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert "<!-- benchmarks -->" not in html
    records = [json.loads(f.read_text(encoding="utf-8")) for f in RECORDS]
    devices, _ = benchmarks.latest(records)
    shown = [r for rows in devices.values() for r in rows]
    for record in shown:
        for text in (f"{record['median_seconds_per_epoch']:.3f}", f"{record['ms_per_step']:.3f}",
                     f"{record['images_per_second']:,.0f}",
                     f"{record['test_accuracy']:.2f} %", record["torch_version"], record["date"][:10],
                     record["device_name"]):
            assert text in html, text
        if record["commit"]:
            assert f"<code>{record['commit'][:7]}</code>" in html
    assert "<svg" in html
    if not any(r["device_kind"] != "cpu" for r in shown):
        assert benchmarks.words(lang)["no_gpu_title"] in html
    # the pipelines' accuracies are compared per device and batch size (a larger batch trains differently)
    groups: dict[tuple, list[float]] = {}
    for r in shown:
        groups.setdefault((r["device_name"], r["batch_size"]), []).append(r["test_accuracy"])
    for accuracies in (a for a in groups.values() if len(a) > 1):
        agree = max(accuracies) - min(accuracies) <= benchmarks.TARGETS["tolerance"]
        verdict = {("en", True): "pipelines <strong>agree within 0.5 points</strong>",
                   ("en", False): "pipelines do <strong>not</strong> agree within 0.5 points",
                   ("zh", True): "<strong>在 0.5 个百分点之内一致</strong>",
                   ("zh", False): "<strong>没有</strong>在 0.5 个百分点之内一致"}[lang, agree]
        assert verdict in html


# ---- the graph-captured rung ----------------------------------------------------------------------------


CPU_REFUSAL = ("resident-graph replays a CUDA graph and needs a CUDA GPU; on cpu, use resident instead")


def test_graph_rung_refuses_on_the_cpu_in_one_line(tiny_mnist, monkeypatch, capsys):
    code, out, err = _main(train, ["--device", "cpu", "--pipeline", "resident-graph", "--data-dir", str(tiny_mnist),
                                   "--no-download"], monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert err == f"train.py: error: argument --pipeline: {CPU_REFUSAL}\n"
    code, out, err = _main(bench, ["--device", "cpu", "--pipelines", "resident", "resident-graph", "--data-dir",
                                   str(tiny_mnist), "--no-download", "--out", str(tiny_mnist / "records")],
                           monkeypatch, capsys)
    assert (code, out) == (2, "")
    assert err == f"bench.py: error: argument --pipelines: {CPU_REFUSAL}\n"
    assert not (tiny_mnist / "records").exists()  # refused before anything ran
    with pytest.raises(ValueError, match="needs a CUDA GPU"):
        train.run("resident-graph", torch.device("cpu"), 1, 8, None, None)


def test_graph_rung_refusal_is_a_real_process_without_traceback():
    command = [sys.executable, TRAIN, "--device", "cpu", "--pipeline", "resident-graph"]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"train.py: error: argument --pipeline: {CPU_REFUSAL}\n"


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


# ---- bench.py: batch sizes as a rung, the loader probe, the targets --------------------------------------


def test_bench_runs_every_cpu_rung_at_every_batch_size(tiny_mnist, tmp_path, monkeypatch, capsys):
    out = tmp_path / "records"
    monkeypatch.setattr(sys, "argv", ["snippets/mnist/bench.py"])
    bench.main(["--device", "cpu", "--batch-sizes", "8", "16", "--epochs", "1", "--data-dir", str(tiny_mnist),
                "--no-download", "--out", str(out)])
    summary = capsys.readouterr().out
    records = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(out.glob("*.json"))]
    assert sorted((r["pipeline"], r["batch_size"]) for r in records) == sorted(
        (p, b) for p in CPU_PIPELINES for b in (8, 16))  # no resident-graph on a CPU: it is left out, not failed
    for record in records:
        jsonschema.validate(record, SCHEMA)
        assert record["learning_rate"] == train.LEARNING_RATE
        assert "loader_probe" not in record
    assert len(summary.splitlines()) == 1 + len(records)  # a header, then one line per run
    for batch in (8, 16):  # same seed, same batches: the rungs train identically on the CPU
        assert len({r["test_accuracy"] for r in records if r["batch_size"] == batch}) == 1


def test_bench_keeps_the_old_batch_size_spelling(tiny_mnist, tmp_path, monkeypatch, capsys):
    """The H100 run's README gives `--batch-size 256`; the same command still works."""
    out = tmp_path / "records"
    monkeypatch.setattr(sys, "argv", ["snippets/mnist/bench.py"])
    bench.main(["--device", "cpu", "--pipelines", "resident", "--batch-size", "8", "--epochs", "1",
                "--data-dir", str(tiny_mnist), "--no-download", "--out", str(out)])
    assert [f.name.rsplit("_", 1)[1] for f in out.glob("*.json")] == ["bs8.json"]


def test_bench_probe_loader_adds_a_schema_valid_split(tiny_mnist, tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "probe_loader", _small_probe(bench.probe_loader))
    out = tmp_path / "records"
    monkeypatch.setattr(sys, "argv", ["snippets/mnist/bench.py"])
    bench.main(["--device", "cpu", "--pipelines", "dataloader", "resident", "--batch-sizes", "8", "--epochs", "1",
                "--data-dir", str(tiny_mnist), "--no-download", "--probe-loader", "--out", str(out)])
    records = {r["pipeline"]: r for r in (json.loads(f.read_text(encoding="utf-8")) for f in out.glob("*.json"))}
    assert "loader_probe" not in records["resident"]
    probe = records["dataloader"]["loader_probe"]
    jsonschema.validate(records["dataloader"], SCHEMA)
    assert probe["steps"] == 4 and probe["threads"] == torch.get_num_threads()
    assert probe["transform_us_per_image"] > 0 and probe["transform_us_per_image_one_thread"] > 0
    assert probe["copy_us_pageable"] is None and probe["copy_us_pinned"] is None  # no copy to make on a CPU
    assert torch.get_num_threads() == records["dataloader"]["torch_threads"]  # the probe put the threads back


def _small_probe(probe):
    """The real probe over 4 steps, on a tiny set: it indexes 2000 images, so the set is repeated."""

    def small(train_set, device, batch_size, steps=200):
        repeated = torch.utils.data.ConcatDataset([train_set] * (2000 // len(train_set) + 1))
        return probe(repeated, device, batch_size, steps=4)

    return small


def test_the_ladder_is_the_same_in_train_hook_and_schema():
    assert benchmarks.LADDER == train.PIPELINES
    assert benchmarks.CUDA_ONLY == train.CUDA_ONLY
    assert SCHEMA["properties"]["pipeline"]["enum"] == list(train.PIPELINES)
    assert SCHEMA["$defs"]["cuda_only_pipelines"]["enum"] == list(train.CUDA_ONLY)
    assert benchmarks.BATCH_SIZES == (64, 256, 1024)
    assert "--batch-sizes 64 256 1024" in (REPO / "Makefile").read_text(encoding="utf-8")


# ---- the H100 records and the GPU half of the page -------------------------------------------------------


def test_the_h100_records_are_committed_unchanged_and_schema_valid():
    assert len(H100_RECORDS) == 9
    for file in H100_RECORDS:
        record = json.loads(file.read_text(encoding="utf-8"))
        jsonschema.validate(record, SCHEMA)
        assert record["commit"].startswith("b1e3b05") and record["torch_version"] == "2.11.0+cu130"
        assert record["commit_dirty"] is False
        if H100_RUN.is_dir():  # the run's own folder, where it is at hand: byte for byte the same
            assert file.read_bytes() == (H100_RUN / file.name).read_bytes()
    assert sorted((r["pipeline"], r["batch_size"]) for r in map(json.loads, map(Path.read_text, H100_RECORDS))) \
        == sorted((p, b) for p in ("dataloader", "dataloader-tuned", "resident") for b in (64, 256, 1024))


def _gpu(**changes) -> dict:
    return _record(device_kind="cuda", device_name="Some GPU", cpu_cores=16, torch_threads=16, **changes)


def test_render_compares_cpu_and_gpu_per_step():
    records = [_record(pipeline="resident", median_seconds_per_epoch=0.34),
               _gpu(pipeline="resident", median_seconds_per_epoch=0.8),
               _gpu(pipeline="resident", batch_size=1024, median_seconds_per_epoch=0.05)]
    en = benchmarks.render(records, "en")
    # 60 000 images: 938 steps at batch 64, 59 at 1024; 0.8 s / 938 = 0.853 ms, 0.05 s / 59 = 0.847 ms
    assert ("Batch size 64: the fastest pipeline on **Some GPU** (`resident`, 0.800 s/epoch, 0.853 ms per step "
            "over 938 steps) is **2.4× slower** than on **Some CPU** (`resident`, 0.340 s/epoch, 0.362 ms per step)"
            ) in en
    assert "Batch size 1024: measured on Some GPU only, so no comparison yet." in en
    assert ("`resident` costs 0.853 ms at batch 64, 0.847 ms at batch 1024 per step: between 0.847 and 0.853 ms at "
            "every batch size, while an epoch goes from 0.800 to 0.050 s as the steps drop from 938 to 59") in en
    records.append(_record(pipeline="resident", batch_size=1024, median_seconds_per_epoch=0.1))
    assert "is **2.0× faster** than on **Some CPU** (`resident`, 0.100 s/epoch" in benchmarks.render(records, "en")
    zh = benchmarks.render(records, "zh")
    assert "**慢 2.4 倍**" in zh and "**快 2.0 倍**" in zh


def test_render_has_one_table_per_device_and_the_chart_lines():
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=3.6), _record(),
               _gpu(pipeline="dataloader", median_seconds_per_epoch=11.1),
               _gpu(pipeline="resident", batch_size=256, median_seconds_per_epoch=0.25)]
    text = benchmarks.render(records, "en")
    assert "**Some CPU (CPU, 2 cores, 2 thread(s) per op)**" in text
    assert "**Some GPU (cuda; host: 16 CPU cores, 16 thread(s) per op)**" in text
    assert text.count("| Pipeline | Batch size |") == 2
    assert "No GPU measurement" not in text and "<svg" in text
    devices, _ = benchmarks.latest(records)
    series = {(key[1], pipeline): points for (key, pipeline), points in benchmarks.chart_series(devices).items()}
    assert series == {("Some CPU", "dataloader"): [(64, 3.6)], ("Some CPU", "resident"): [(64, 0.31)],
                      ("Some GPU", "dataloader"): [(64, 11.1)], ("Some GPU", "resident"): [(256, 0.25)]}


def test_render_names_the_rungs_not_measured_yet():
    records = [_record(pipeline="dataloader"), _gpu(pipeline="resident")]
    text = benchmarks.render(records, "en")
    assert ("No record yet on **Some CPU (CPU, 2 cores, 2 thread(s) per op)** for: `dataloader` at batch 256/1024, "
            "`dataloader-tuned` at batch 64/256/1024, `resident` at batch 64/256/1024.") in text  # no graph on a CPU
    assert "`resident` at batch 256/1024, `resident-graph` at batch 64/256/1024." in text
    assert "尚未测量" in benchmarks.render(records, "zh")


def test_render_checks_the_targets_from_the_records():
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=3.6),
               _record(pipeline="resident", batch_size=1024, median_seconds_per_epoch=0.12, test_accuracy=90.2),
               _gpu(pipeline="dataloader", median_seconds_per_epoch=11.0),
               _gpu(pipeline="resident-graph", median_seconds_per_epoch=0.05)]
    text = benchmarks.render(records, "en")
    assert ("**Some CPU**: best rung `resident` at batch 1024, 0.120 s/epoch, is 30.0× the `dataloader` pipeline at "
            "batch 64 (target ≥ 10×), test accuracy 0.30 points from it (target ≤ 0.5): **met**.") in text
    assert ("**Some GPU**, batch 64: fastest pipeline `resident-graph` at 0.050 s/epoch (target ≤ 0.08 s) and 220.0× "
            "the `dataloader` pipeline (target ≥ 100×), test accuracy 0.00 points from it (target ≤ 0.5): **met**."
            ) in text
    records[3]["median_seconds_per_epoch"] = 0.8
    assert "13.8× the `dataloader` pipeline (target ≥ 100×), test accuracy 0.00 points from it (target ≤ 0.5): " \
           "**not met**" in benchmarks.render(records, "en")


def test_render_splits_the_loader_step_when_probed():
    probe = {"steps": 200, "threads": 16, "transform_us_per_image": 150.0, "transform_us_per_image_one_thread": 50.0,
             "make_batch_ms": 10.0, "copy_batch_ms": 0.5, "train_step_ms": 1.25, "copy_us_pageable": 80.0,
             "copy_us_pinned": 20.0}
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=3.638),
               _gpu(pipeline="dataloader", median_seconds_per_epoch=11.1258)]
    text = benchmarks.render(records, "en")
    assert ("`dataloader` at batch 64: 11.861 ms per step on the **Some GPU** host (16 cores, 16 threads per op) "
            "against 3.878 ms on **Some CPU** (2 cores, 2 threads per op): 3.1× slower.") in text
    assert "No `--probe-loader` record yet for **Some GPU (cuda;" in text
    records[1]["loader_probe"] = probe
    jsonschema.validate(records[1], SCHEMA)
    text = benchmarks.render(records, "en")
    assert ("per step 10.000 ms waiting for the batch, 0.500 ms copying it to the device, 1.250 ms training") in text
    assert "150.0 µs with 16 threads per op, 50.0 µs with one" in text
    assert "80.0 µs from ordinary (pageable) memory, 20.0 µs from pinned memory" in text
    assert "No `--probe-loader` record yet for **Some GPU" not in text
    assert "No `--probe-loader` record yet for **Some CPU" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_built_page_shows_the_h100_rows_and_the_chart(built_site, lang):
    html = (built_site / ("" if lang == "en" else "zh") / "mnist" / "index.html").read_text(encoding="utf-8")
    h100 = [json.loads(f.read_text(encoding="utf-8")) for f in H100_RECORDS]
    assert "NVIDIA H100 80GB HBM3" in html
    for record in h100:
        assert f"{record['median_seconds_per_epoch']:.3f}" in html
    at_64 = next(r for r in h100 if r["pipeline"] == "resident" and r["batch_size"] == 64)
    assert f"{benchmarks.with_steps(at_64)['ms_per_step']:.3f}" in html and "938" in html
    assert 'class="benchmark-chart"' in html and html.count("<svg") >= 1
    assert "resident-graph" in html  # named among the rungs not measured yet


def test_records_show_the_gpu_losing_at_the_guides_batch_size():
    """The erratum gpu-speeds-up-the-guides-example, checked against the committed records.

    The guide's code runs eagerly, so the GPU side is its eager pipelines (not the graph-captured rung).
    """
    records = [json.loads(f.read_text(encoding="utf-8")) for f in RECORDS]
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
    seeds = REPO.parent / "shared" / "seeds"
    if not seeds.is_dir():
        pytest.skip("the source guides (../shared/seeds) are not beside this checkout")
    batch_size = 32
    guide = next(seeds.glob("004*")).read_text(encoding="utf-8")
    assert f"batch_size={batch_size}," in guide and "loss.item()" in guide
    steps = len(torch.utils.data.DataLoader(range(60_000), batch_size=batch_size))
    assert steps == 1875
    assert f"{steps:,} times per epoch" in (DOCS / "en" / "mnist.md").read_text(encoding="utf-8")
    assert f"每轮 {steps} 次" in (DOCS / "zh" / "mnist.md").read_text(encoding="utf-8")
