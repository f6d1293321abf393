"""snippets/mnist/bench.py: the runs it makes, the records it writes and the one-line refusals; its statistics, its
contention flag and its floor, from synthetic timings (no test times anything: the gauge and the device's peak are
replaced by fixed numbers).

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


PEAK = (1.0e11, 1.0e10, "synthetic")  # FLOP/s, bytes/s, source: what bench.device_peak would measure


def _bench(tmp_path_factory, tiny_mnist, argv: list[str], probe=None, readings=(0.4,)) -> tuple[list[dict], list[Path],
                                                                                              str]:
    """bench.main(argv) into a fresh folder, the gauge reading `readings` in turn: its records, their files and what it
    printed."""
    out = tmp_path_factory.mktemp("records")
    printed = io.StringIO()
    gauge = iter(readings * 100)
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(sys, "argv", ["snippets/mnist/bench.py"])
        patch.setattr(bench, "gauge", lambda: next(gauge))
        patch.setattr(bench, "device_peak", lambda device: PEAK)
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
        assert lines[0].split() == ["pipeline", "batch", "s/epoch", "min", "floor", "images/s", "loss", "accuracy",
                                    "gauge"]
        # then the targets, which these runs cannot check (no dataloader run at batch 64)
        assert lines.pop() == "targets: not checked (they need the dataloader run at batch 64)"
        assert len(lines) == 1 + len(records)
        for r in records:
            above = r["median_seconds_per_epoch"] / r["floor"]["seconds"]
            assert any(line.split() == [r["pipeline"], str(r["batch_size"]), f"{r['median_seconds_per_epoch']:.3f}",
                                        f"{r['min_seconds_per_epoch']:.3f}", f"{above:.0f}x",
                                        f"{r['images_per_second']:.0f}", f"{r['final_loss']:.3f}",
                                        f"{r['test_accuracy']:.2f}%", "0.40/0.40", "s"] for line in lines[1:]), r


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


# ---- statistics, contention and the floor, from synthetic timings ------------------------------------------


def test_a_run_reports_the_median_and_the_minimum_of_its_epochs():
    assert bench.epoch_stats([0.2, 0.16, 0.9, 0.17, 0.18]) == {"median": 0.18, "min": 0.16}  # one slow epoch: ignored
    assert bench.epoch_stats([0.3, 0.1]) == {"median": 0.2, "min": 0.1}
    assert bench.TIMED_EPOCHS >= 5
    parser_default = next(a.default for a in _parser_actions() if a.dest == "epochs")
    assert parser_default == bench.TIMED_EPOCHS


def _parser_actions():
    """bench.py's argparse actions, caught as main() builds them (main is stopped before anything runs)."""
    caught = []

    class Stop(Exception):
        pass

    def parse(self, argv=None, namespace=None):
        caught.extend(self._actions)
        raise Stop

    with pytest.MonkeyPatch.context() as patch, contextlib.suppress(Stop):
        patch.setattr(train.OneLineParser, "parse_args", parse)
        bench.main([])
    return caught


@pytest.mark.parametrize(("before", "after", "contended"), [
    (0.38, 0.40, False),  # quiet
    (0.57, 0.38, False),  # at the limit, 1.5 x 0.38: not over it
    (0.58, 0.38, True),  # over it before the run
    (0.38, 0.96, True),  # the busy readings of the issue: 0.96-2.12 s
    (2.12, 1.5, True),
])
def test_a_run_is_contended_when_the_gauge_reads_well_above_quiet(before, after, contended):
    noise = bench.contention(before, after, quiet=0.38)
    assert noise == {"before_seconds": before, "after_seconds": after, "quiet_seconds": 0.38, "limit": 1.5,
                     "contended": contended}


def test_a_contended_run_is_flagged_in_its_records_and_its_output(tmp_path_factory, tiny_mnist):
    records, _, printed = _bench(tmp_path_factory, tiny_mnist, ["--pipelines", "resident", "resident-manual",
                                                                 "--batch-sizes", "8"], readings=(0.4, 1.2))
    for record in records:  # each run: 0.4 s before, 1.2 s after
        jsonschema.validate(record, benchmarks.SCHEMA)
        assert record["contended"] is True
        assert record["gauge"] == {"before_seconds": 0.4, "after_seconds": 1.2, "quiet_seconds": 0.38, "limit": 1.5}
    assert printed.count("CONTENDED") == 3  # one per run, and the count after them
    assert "2 of 2 runs CONTENDED" in printed
    quiet, _, printed = _bench(tmp_path_factory, tiny_mnist, ["--pipelines", "resident", "--batch-sizes", "8",
                                                               "--quiet-gauge", "0.9"], readings=(0.4, 1.2))
    assert quiet[0]["contended"] is False and quiet[0]["gauge"]["quiet_seconds"] == 0.9  # 1.2 < 1.5 x 0.9
    assert "CONTENDED" not in printed


def test_the_floor_is_the_epochs_arithmetic_or_traffic_at_the_peak():
    # 60 000 images at batch 64: 938 steps; per image 4 x 7840 + 70 FLOP, per step 4 x 7850 for the update
    flop = 60_000 * (4 * 7840 + 70) + 938 * 4 * 7850
    traffic = 60_000 * (784 * 4 + 8)  # every image (float32) and label (int64) read once
    assert (flop, traffic) == (1_915_253_200, 188_640_000)
    floor = bench.floor(60_000, 64, (1.0e11, 1.0e10, "synthetic"))
    assert floor == {"flop": flop, "bytes": traffic, "peak_flop_per_second": 1.0e11, "peak_bytes_per_second": 1.0e10,
                     "peak_source": "synthetic", "seconds": 0.01915}  # compute-bound: 0.0191 s > 0.0189 s
    memory_bound = bench.floor(60_000, 1024, (1.0e12, 1.0e10, "synthetic"))
    assert memory_bound["seconds"] == 0.01886  # 188.64 MB at 10 GB/s
    h100 = bench.floor(60_000, 64, bench.GPU_PEAKS["NVIDIA H100 80GB HBM3"])
    assert h100["seconds"] == pytest.approx(traffic / 3.35e12, rel=1e-3)
    assert "nvidia.com" in h100["peak_source"]


def test_every_record_of_a_run_stores_its_floor(every_rung):
    records, _, _ = every_rung
    for record in records:
        expected = bench.floor(record["train_images"], record["batch_size"], PEAK)
        assert record["floor"] == expected
        assert record["min_seconds_per_epoch"] <= record["median_seconds_per_epoch"]
        assert record["schema_version"] == 2 and record["contended"] is False
