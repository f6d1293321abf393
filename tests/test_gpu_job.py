"""The GPU job (tools/gpu_job.py, `make gpu-job`): its benchmark plan fits the time it is given, its folder holds
records that load as the site loads them, named as in docs/data/, and its test run keeps what a GPU can change.

The whole job is rehearsed on a CPU by `make gpu-job-rehearsal` (minutes: it runs the tests and the benchmark);
here its writers and checks run on a small folder made from a verification record, committed benchmark records
and snippet runs, as the job makes them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

import gpu_job_plugin
import verification_record
from block_warnings import Warned
from codeblocks_plugin import page_blocks
from site_pages import DOCS, REPO
from snippet_runs import Run
from verification_record import build_record, command_args, record_path

sys.path.insert(0, str(REPO / "tools"))
import gpu_job

BENCHMARKS = sorted((DOCS / "data" / "benchmarks").glob("*.json"))
RUNGS = ["dataloader", "dataloader-tuned", "resident", "resident-manual", "resident-graph"]


def estimates() -> dict:
    return gpu_job.epoch_estimates([json.loads(p.read_text(encoding="utf-8")) for p in BENCHMARKS])


def test_the_estimates_are_the_newest_gpu_records():
    def record(kind, date, seconds, pipeline="dataloader"):
        return {"device_kind": kind, "date": date, "pipeline": pipeline, "batch_size": 64,
                "median_seconds_per_epoch": seconds}

    found = gpu_job.epoch_estimates([record("cuda", "2026-11-22T08:00:00Z", 11.0),
                                     record("cuda", "2026-12-01T08:00:00Z", 9.0),
                                     record("cpu", "2026-12-02T08:00:00Z", 3.0),
                                     record("cuda", "2026-11-22T08:00:00Z", 0.8, "resident")])
    assert found == {("dataloader", 64): 9.0, ("resident", 64): 0.8}
    assert gpu_job.estimate(found, "resident-graph", 64) == 0.8  # no record of its own: the resident rung's
    assert {b for _, b in estimates()} == set(gpu_job.BATCH_SIZES)  # the committed GPU records cover each size


@pytest.mark.parametrize("seconds", [150, 215, 305, 400])
def test_the_benchmark_plan_runs_every_rung_and_fits_the_time(seconds):
    plan = gpu_job.plan_bench(seconds, estimates(), RUNGS, gpu_job.BATCH_SIZES)
    assert sorted(r for g in plan["groups"] for r in g["rungs"]) == sorted(RUNGS)
    slow = next(g for g in plan["groups"] if "dataloader" in g["rungs"])
    fast = next(g for g in plan["groups"] if "resident" in g["rungs"])
    assert fast["epochs"] == gpu_job.DEFAULT_EPOCHS
    if slow["epochs"] > gpu_job.MIN_EPOCHS:  # the fewest epochs run even when they do not fit
        assert sum(g["estimate_seconds"] for g in plan["groups"]) <= seconds
    more = gpu_job.plan_bench(seconds + 60, estimates(), RUNGS, gpu_job.BATCH_SIZES)
    assert next(g for g in more["groups"] if "dataloader" in g["rungs"])["epochs"] >= slow["epochs"]
    assert bool(plan["cut"]) == (slow["epochs"] < gpu_job.DEFAULT_EPOCHS)


def test_with_time_enough_nothing_is_cut():
    plan = gpu_job.plan_bench(3600, estimates(), RUNGS, gpu_job.BATCH_SIZES)
    assert plan["cut"] == [] and {g["epochs"] for g in plan["groups"]} == {gpu_job.DEFAULT_EPOCHS}


def a_job_folder(tmp_path: Path) -> Path:
    """A folder as the job leaves it after a GPU run: a verification record (built as the plugin builds it), two
    snippet runs written by the tests' listener, the GPU outputs record made from them, committed GPU benchmark
    records, the manifest."""
    folder = tmp_path / "gpu-run"
    page, snippet = "docs/en/devices.md", "snippets/devices/gpu_details.py"
    record = {
        "schema_version": 1, "date": "2026-12-01T10:00:00Z", "device_type": "cuda", "device_name": "NVIDIA H200",
        "cuda_device_count": 1, "cpu_cores": 16, "torch_version": "2.11.0+cu130", "python_version": "3.12.3",
        "commit": "0" * 40, "commit_dirty": False, "command": "pytest -p gpu_job_plugin --gpu-job-select",
        "source": {"kind": "pytest", "file": None},
        **build_record({f"{page}::block 4 [{snippet}]": ("passed", ""),
                        f"tests/test_snippets.py::test_snippet_runs_as_a_script[{snippet}]": ("passed", "")}),
    }
    path = record_path(folder / "verification", record)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record), encoding="utf-8")
    for name, out in ((snippet, "1 GPU(s); cuda:0 = NVIDIA H200\n"), ("snippets/tensors/create.py", "tensor\n")):
        gpu_job_plugin.write_snippet_run(folder / "snippet-outputs", name, Run(f"python {name}", 0, out, ""))
    outputs, _ = gpu_job.gpu_outputs_record(record, gpu_job.snippet_runs(folder), "2026-12-01-h200")
    (folder / "gpu-outputs").mkdir()
    (folder / "gpu-outputs" / outputs["verification_record"]).write_text(json.dumps(outputs), encoding="utf-8")
    (folder / "benchmarks").mkdir()
    for source in (p for p in BENCHMARKS if "_cuda_" in p.name):
        shutil.copy(source, folder / "benchmarks")
    manifest = {"run_name": "2026-12-01-h200", "env": {}, "cut": [], "command": "python3 tools/gpu_job.py",
                "stages": [{"stage": "env", "command": "python3 -c ...", "seconds": 1.5}]}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "README.md").write_text("# GPU job\n", encoding="utf-8")
    return folder


def test_a_job_folder_holds_records_the_site_loads_under_their_docs_data_names(tmp_path):
    folder = a_job_folder(tmp_path)
    assert gpu_job.check_folder(folder) == []
    assert sorted(p.name for p in (folder / "verification").iterdir()) == ["2026-12-01_cuda_nvidia-h200.json"]
    outputs = json.loads(next((folder / "gpu-outputs").iterdir()).read_text(encoding="utf-8"))
    # only the snippet that names CUDA, as it printed it
    assert outputs["outputs"] == {"snippets/devices/gpu_details.py": "1 GPU(s); cuda:0 = NVIDIA H200\n"}
    assert outputs["source"].startswith("shared/gpu-runs/2026-12-01-h200/snippet-outputs/")
    assert gpu_job.validate(folder) and set(gpu_job.validate(folder).values()) == {"ok"}


def test_the_check_names_a_record_the_site_would_refuse_or_misname(tmp_path):
    folder = a_job_folder(tmp_path)
    bench = next((folder / "benchmarks").iterdir())
    record = json.loads(bench.read_text(encoding="utf-8"))
    bench.rename(bench.with_name("renamed.json"))
    assert gpu_job.check_folder(folder) == [f"benchmarks/renamed.json: named {bench.name} in docs/data/benchmarks/"]
    del record["test_accuracy"]
    bench.with_name("renamed.json").write_text(json.dumps(record), encoding="utf-8")
    problems = gpu_job.check_folder(folder)
    assert problems and "field 'test_accuracy'" in problems[0], problems


def test_the_check_names_an_output_that_is_not_what_the_run_printed(tmp_path):
    folder = a_job_folder(tmp_path)
    (folder / "snippet-outputs" / "snippets_devices_gpu_details.py.out").write_text("other\n", encoding="utf-8")
    assert gpu_job.check_folder(folder) == [
        "gpu-outputs/2026-12-01_cuda_nvidia-h200.json: snippets/devices/gpu_details.py is not what the run printed"]


def test_a_page_blocks_run_with_its_warnings_is_written_as_json():
    # block-outputs/<worker>.jsonl: a block's run holds the warnings it raised (block_warnings.Warned), which json
    # cannot write as they are; one such block (legacy.md's) stopped the job's tests stage with an internal error
    warned = Warned("FutureWarning", "old spelling", str(REPO / "snippets/x.py"), 3)
    line = json.dumps(gpu_job_plugin.what_ran(("1\n", (warned,))))
    assert json.loads(line) == {"printed": "1\n", "warnings": ["FutureWarning: old spelling (snippets/x.py:3)"]}
    assert gpu_job_plugin.what_ran(None) == {"printed": None, "warnings": []}


def test_a_snippet_that_failed_or_printed_nothing_is_left_out_of_the_gpu_outputs(tmp_path):
    folder = tmp_path / "run"
    gpu_job_plugin.write_snippet_run(folder / "snippet-outputs", "snippets/devices/gpu_details.py",
                                     Run("python x", 1, "half", "Traceback"))
    gpu_job_plugin.write_snippet_run(folder / "snippet-outputs", "snippets/performance/cuda_events.py",
                                     Run("python y", 0, "", ""))
    verification = {"date": "2026-12-01T10:00:00Z", "device_type": "cuda", "device_name": "NVIDIA H200",
                    "torch_version": "2.11.0", "commit": "0" * 40}
    record, left = gpu_job.gpu_outputs_record(verification, gpu_job.snippet_runs(folder), "x")
    assert record["outputs"] == {}
    assert left == ["snippets/devices/gpu_details.py: exited with status 1",
                    "snippets/performance/cuda_events.py: printed nothing"]


def test_block_outputs_of_every_process_become_one_file(tmp_path):
    parts = tmp_path / "block-outputs"
    parts.mkdir()
    (parts / "gw0.jsonl").write_text('{"test": "b"}\n{"test": "a"}\n', encoding="utf-8")
    (parts / "gw1.jsonl").write_text('{"test": "c"}\n', encoding="utf-8")
    assert gpu_job.merge_block_outputs(tmp_path) == 3
    assert [b["test"] for b in json.loads((tmp_path / "block-outputs.json").read_text())] == ["a", "b", "c"]
    assert not parts.exists()


def test_the_record_command_leaves_out_where_files_go():
    args = ["-p", "gpu_job_plugin", "--verification-record", "--verification-record-dir", "/tmp/x/verification",
            "--gpu-job-outputs", "/tmp/x", "--junitxml=/tmp/x/junit.xml", "docs/en"]
    assert command_args(args) == ["-p", "gpu_job_plugin", "docs/en"]


def test_short_device_names_the_gpu_runs_folder():
    assert gpu_job.short_device("NVIDIA H100 80GB HBM3") == "h100"  # ../shared/gpu-runs/2026-11-22-h100
    assert gpu_job.short_device("NVIDIA H200") == "h200"


def test_the_selection_keeps_what_a_gpu_can_change():
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "gpu_job_plugin", "--gpu-job-select",
         "--co", "-q", "docs/en/tensors.md", "tests/test_tensors.py"],
        cwd=REPO, capture_output=True, text=True, timeout=300)
    kept = set(done.stdout.splitlines())
    assert "docs/en/tensors.md::block 3 [snippets/tensors/create_cuda.py]" in kept  # marked cuda
    assert "tests/test_tensors.py::test_cpu_scalar_tensor_mixes_with_cuda" in kept  # marked cuda
    assert "tests/test_tensors.py::test_a_cpu_generator_cannot_drive_cuda_sampling" in kept
    # a block with no CUDA in its code is left out, as is a test with none
    assert "block 2 [snippets/tensors/create.py]" in [b.label for b in page_blocks(DOCS / "en" / "tensors.md")]
    assert "docs/en/tensors.md::block 2 [snippets/tensors/create.py]" not in kept
    assert "def test_get_device_is_minus_one_on_cpu" in (REPO / "tests" / "test_tensors.py").read_text()
    assert "tests/test_tensors.py::test_get_device_is_minus_one_on_cpu" not in kept
    assert any("deselected" in line for line in kept), done.stdout[-2000:]


def test_bad_arguments_get_one_line(tmp_path, capsys):
    (tmp_path / "x").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        gpu_job.main(["--out", str(tmp_path)])
    assert str(stop.value) == f"gpu_job.py: --out {tmp_path}: exists and is not an empty folder"
    with pytest.raises(SystemExit) as stop:
        gpu_job.main([])
    assert str(stop.value).startswith("gpu_job.py: say where the run's folder goes")


def test_the_reason_a_cut_test_gives_has_words_in_every_language():
    # a GPU record with tests cut for time shows that reason on the pages' stamps
    for lang in ("en", "zh"):
        words = yaml.safe_load((DOCS / "data" / "text" / lang / "verification.yml").read_text(encoding="utf-8"))
        assert gpu_job_plugin.CUT_REASON in words["skip_reasons"], lang


def test_under_xdist_only_the_controller_writes_the_verification_record(tmp_path):
    # a worker's summary holds its own share of the tests; written after the controller's (a job stopped at its
    # limit), it would pass for the whole run's record
    report = SimpleNamespace(nodeid="docs/en/devices.md::block 1 [snippets/devices/version.py]", when="call",
                             longrepr=None)
    reporter = SimpleNamespace(stats={"passed": [report]}, write_line=lambda line: None)

    def config(**more):
        options = {"verification_record": True, "verification_record_dir": tmp_path}
        return SimpleNamespace(getoption=options.get, invocation_params=SimpleNamespace(args=("docs/en",)), **more)

    verification_record.pytest_terminal_summary(reporter, 0, config(workerinput={"workerid": "gw0"}))
    assert list(tmp_path.iterdir()) == []
    verification_record.pytest_terminal_summary(reporter, 0, config())
    [written] = tmp_path.iterdir()
    assert json.loads(written.read_text(encoding="utf-8"))["totals"]["passed"] == 1
