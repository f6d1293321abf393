"""snippets/mnist/bench.py: the runs it makes, the records it writes and the one-line refusals.

Each bench.main() call trains every pipeline asked for, so the checks share runs: one run of two rungs with
the loader probe (spelled with the older --batch-size), one of every CPU rung at two batch sizes.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from pathlib import Path

import bench
import jsonschema
import pytest
import torch
import train

import benchmarks  # docs/hooks/benchmarks.py: the schema the site checks records against
from site_pages import DOCS

CPU_PIPELINES = [p for p in train.PIPELINES if p not in train.CUDA_ONLY]
COMMITTED = sorted(p.name for p in (DOCS / "data" / "benchmarks").glob("*.json"))  # before any test runs


def _bench(tmp_path_factory, tiny_mnist, argv: list[str], probe=None) -> tuple[list[dict], list[Path], str]:
    """bench.main(argv) into a fresh folder: its records, their files and what it printed."""
    out = tmp_path_factory.mktemp("records")
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(sys, "argv", ["snippets/mnist/bench.py"])
        if probe:
            patch.setattr(bench, "probe_loader", probe)
        bench.main([*argv, "--device", "cpu", "--epochs", "1", "--data-dir", str(tiny_mnist), "--no-download",
                    "--out", str(out)])
    files = sorted(out.glob("*.json"))
    return [json.loads(f.read_text(encoding="utf-8")) for f in files], files, printed.getvalue()


def _small_probe(train_set, device, batch_size, steps=200, probe=bench.probe_loader):
    """The real probe over 4 steps, on the tiny set: it indexes 2000 images, so the set is repeated."""
    repeated = torch.utils.data.ConcatDataset([train_set] * (2000 // len(train_set) + 1))
    return probe(repeated, device, batch_size, steps=4)


@pytest.fixture(scope="module")
def probed_run(tmp_path_factory, tiny_mnist):
    """dataloader and resident at batch size 8, with --probe-loader, spelled as the H100 run's README does."""
    return _bench(tmp_path_factory, tiny_mnist, ["--pipelines", "dataloader", "resident", "--batch-size", "8",
                                                 "--probe-loader"], probe=_small_probe)


@pytest.fixture(scope="module")
def every_rung(tmp_path_factory, tiny_mnist):
    return _bench(tmp_path_factory, tiny_mnist, ["--batch-sizes", "8", "16"])


def test_bench_writes_schema_valid_records(probed_run):
    records, files, _ = probed_run
    assert len(files) == 2
    for file, record in zip(files, records, strict=True):
        jsonschema.validate(record, benchmarks.SCHEMA)
        device = re.sub("[^a-z0-9]+", "-", record["device_name"].lower()).strip("-")
        assert file.name == f"{record['date'][:10]}_cpu_{device}_{record['pipeline']}_bs8.json"
        assert record["epochs"] == len(record["seconds_per_epoch"]) == 1
        assert record["warmup_epochs"] == len(record["warmup_seconds"]) == 1
        assert record["train_images"] == 40
        assert record["learning_rate"] == train.LEARNING_RATE
    assert records[0]["test_accuracy"] == records[1]["test_accuracy"]  # same seed and batches: same training


def test_bench_prints_one_line_per_run(probed_run, every_rung):
    for records, _, printed in (probed_run, every_rung):
        lines = printed.splitlines()
        assert lines[0].split() == ["pipeline", "batch", "s/epoch", "images/s", "loss", "accuracy"]
        # then the targets, which these runs cannot check (no dataloader run at batch 64)
        assert lines.pop() == "targets: not checked (they need the dataloader run at batch 64)"
        assert len(lines) == 1 + len(records)
        for r in records:
            assert any(line.split() == [r["pipeline"], str(r["batch_size"]), f"{r['median_seconds_per_epoch']:.3f}",
                                        f"{r['images_per_second']:.0f}", f"{r['final_loss']:.3f}",
                                        f"{r['test_accuracy']:.2f}%"] for line in lines[1:]), r


def _run(pipeline, batch, seconds, accuracy=91.0, kind="cpu"):
    return {"pipeline": pipeline, "batch_size": batch, "median_seconds_per_epoch": seconds,
            "test_accuracy": accuracy, "device_kind": kind, "device_name": "Some " + kind.upper()}


def test_bench_reports_the_ladders_targets_not_the_page():
    cpu = [_run("dataloader", 64, 3.6), _run("resident", 1024, 0.12, 90.7)]
    assert bench.targets(cpu).splitlines() == [
        "targets (Some CPU, best: resident at batch 1024):",
        "  30.0x the dataloader pipeline (target >= 10x): met",
        "  accuracy 0.30 points from it (target <= 0.5): met",
    ]
    cpu[1]["test_accuracy"] = 90.4  # 30x faster, but 0.6 points off
    assert bench.targets(cpu).endswith("accuracy 0.60 points from it (target <= 0.5): NOT met")
    gpu = [_run("dataloader", 64, 11.0, kind="cuda"), _run("resident-graph", 64, 0.05, kind="cuda"),
           _run("resident", 1024, 0.01, kind="cuda")]  # the GPU's targets are at batch 64 only
    assert bench.targets(gpu).splitlines()[:3] == [
        "targets (Some CUDA, best: resident-graph at batch 64):",
        "  0.050 s/epoch (target <= 0.08 s): met",
        "  220.0x the dataloader pipeline (target >= 100x): met",
    ]
    gpu[1]["median_seconds_per_epoch"] = 0.09  # 122x faster, but over 0.08 s
    assert "0.090 s/epoch (target <= 0.08 s): NOT met" in bench.targets(gpu)
    assert "targets: not checked" in bench.targets(gpu[1:])


def test_bench_probe_loader_adds_a_schema_valid_split(probed_run):
    records = {r["pipeline"]: r for r in probed_run[0]}
    assert "loader_probe" not in records["resident"]
    probe = records["dataloader"]["loader_probe"]
    assert probe["steps"] == 4 and probe["threads"] == torch.get_num_threads()
    assert probe["transform_us_per_image"] > 0 and probe["transform_us_per_image_one_thread"] > 0
    assert probe["copy_us_pageable"] is None and probe["copy_us_pinned"] is None  # no copy to make on a CPU
    assert torch.get_num_threads() == records["dataloader"]["torch_threads"]  # the probe put the threads back


def test_bench_runs_every_cpu_rung_at_every_batch_size(every_rung):
    records, _, _ = every_rung
    assert sorted((r["pipeline"], r["batch_size"]) for r in records) == sorted(
        (p, b) for p in CPU_PIPELINES for b in (8, 16))  # no resident-graph on a CPU: it is left out, not failed
    for record in records:
        jsonschema.validate(record, benchmarks.SCHEMA)
        assert record["learning_rate"] == train.LEARNING_RATE
        assert "loader_probe" not in record
    for batch in (8, 16):  # same seed, same batches: the rungs train identically on the CPU
        assert len({r["test_accuracy"] for r in records if r["batch_size"] == batch}) == 1


def test_bench_refuses_the_graph_rung_on_the_cpu_in_one_line(tiny_mnist, tmp_path, run_main):
    argv = ["--device", "cpu", "--pipelines", "resident", "resident-graph", "--data-dir", str(tiny_mnist),
            "--no-download", "--out", str(tmp_path / "records")]
    assert run_main(bench, argv) == (2, "", "bench.py: error: argument --pipelines: resident-graph replays a CUDA "
                                            "graph and needs a CUDA GPU; on cpu, use resident instead\n")
    assert not (tmp_path / "records").exists()  # refused before anything ran


def test_bench_writes_nothing_into_the_site_during_tests(probed_run, every_rung):
    assert sorted(p.name for p in (DOCS / "data" / "benchmarks").glob("*.json")) == COMMITTED
