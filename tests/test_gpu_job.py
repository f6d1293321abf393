"""The GPU job (tools/gpu_job.py, `make gpu-job`): its stages leave no process behind, its plan runs every rung of
the ladder, its records load as the site loads them, and its test run keeps what a GPU can change.

The whole job is rehearsed on a CPU by `make gpu-job-rehearsal` (minutes); here its parts run on their own.
"""

from __future__ import annotations

import json
import re
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
sys.path.insert(0, str(REPO / "snippets" / "mnist"))
import gpu_job
import train

# what the review found alive 19 minutes after a rehearsal (a forkserver, its child blocked, the resource tracker),
# and a process in a session of its own, as torchrun starts its workers: out of reach of a process-group kill
LEAVER = """
import json, multiprocessing, os, subprocess, sys, time
from multiprocessing import resource_tracker

if __name__ == "__main__":
    context = multiprocessing.get_context("forkserver")
    blocked = context.Process(target=time.sleep, args=(600,))
    blocked.start()
    lock = context.Lock()  # a semaphore, which the resource tracker tracks
    own_session = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    pids = {"blocked": blocked.pid, "forkserver": multiprocessing.forkserver._forkserver._forkserver_pid,
            "tracker": resource_tracker._resource_tracker._pid, "own session": own_session.pid}
    with open(sys.argv[1] + ".part", "w") as out:
        json.dump(pids, out)
    os.replace(sys.argv[1] + ".part", sys.argv[1])
    if sys.argv[2] == "hangs":
        time.sleep(600)
    os._exit(0)  # no atexit: the blocked child holds the forkserver's and the tracker's pipes open
"""


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the supervisor reads /proc (Linux)")
@pytest.mark.parametrize("mode", ["exits", "hangs"])
def test_a_stage_leaves_no_process_behind_when_it_ends_or_times_out(tmp_path, mode):
    (tmp_path / "leaver.py").write_text(LEAVER, encoding="utf-8")
    pids_file = tmp_path / "pids.json"
    limit = 60 if mode == "exits" else 20  # it starts four processes in a few seconds, even on a busy machine
    stage = gpu_job.run_stage("leaver", [sys.executable, str(tmp_path / "leaver.py"), str(pids_file), mode], limit,
                              tmp_path / "leaver.log")
    assert pids_file.is_file(), (tmp_path / "leaver.log").read_text(encoding="utf-8")
    pids = json.loads(pids_file.read_text(encoding="utf-8"))
    assert stage["timed_out"] == (mode == "hangs") and stage["returncode"] == (0 if mode == "exits" else -2), stage
    assert [name for name, pid in pids.items() if alive(pid)] == []
    # after a stage that exited, all four were left (each named); at the limit, Ctrl-C to the stage's group may
    # end the rest before the supervisor looks, but never the process in a session of its own
    ended = {int(line.split()[0]) for line in stage["left_behind"]}
    assert (set(pids.values()) if mode == "exits" else {pids["own session"]}) <= ended, stage["left_behind"]
    assert "leaver.py" in stage["command"] and stage["limit_seconds"] == limit


def test_the_plan_runs_every_rung_at_every_batch_size_within_ten_minutes():
    assert sorted(gpu_job.RESIDENT + gpu_job.LOADER) == sorted(train.PIPELINES)
    assert gpu_job.CUDA_ONLY == train.CUDA_ONLY
    assert gpu_job.BATCH_SIZES == (64, 256, 1024)  # issue 52: every rung at these, the loader probe with dataloader
    stages = [*gpu_job.LIMITS.values(), gpu_job.TESTS_SECONDS + gpu_job.TESTS_MARGIN]
    assert sum(stages) + gpu_job.GRACE * len(stages) <= 600 - 30  # 30 s for the kills, the check, the README


def test_a_stage_whose_packages_are_missing_gets_one_line_with_the_pins(monkeypatch):
    monkeypatch.setitem(gpu_job.NEEDS, "bench", {"json": "json", "no_such_module_here": "tqdm"})
    pin = next(line for line in (REPO / "requirements.txt").read_text().splitlines() if line.startswith("tqdm=="))
    assert gpu_job.missing("bench") == f"this Python lacks tqdm (pip install {pin})"
    monkeypatch.setitem(gpu_job.NEEDS, "bench", {"json": "json"})
    assert not gpu_job.missing("bench")


def test_a_job_whose_stages_lack_packages_names_them_and_its_torch_and_fails(tmp_path, monkeypatch):
    # a GPU owner's Python may hold torch, torchvision and pytest alone: env runs, each other stage is one line
    for stage in gpu_job.NEEDS:
        monkeypatch.setitem(gpu_job.NEEDS, stage, {"no_such_module_here": "jsonschema"})
    assert gpu_job.main(["--dry-run", "--out", str(tmp_path / "run")]) == 1
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text(encoding="utf-8"))
    assert [s["stage"] for s in manifest["stages"]] == ["env"] and manifest["not_run"] == ["tests", "bench"]
    readme = (tmp_path / "run" / "README.md").read_text(encoding="utf-8")
    assert f"torch {train.torch.__version__} (CUDA {train.torch.version.cuda})" in readme
    pin = next(line for line in (REPO / "requirements.txt").read_text().splitlines() if line.startswith("jsonschema"))
    assert f"- bench: not run: this Python lacks jsonschema (pip install {pin})\n" in readme


def test_the_reason_a_cut_test_gives_is_the_plugins_and_has_words_in_every_language():
    # a GPU record with tests cut for time shows that reason on the Verification page
    assert gpu_job.CUT_REASON == gpu_job_plugin.CUT_REASON
    for lang in ("en", "zh"):
        words = yaml.safe_load((DOCS / "data" / "text" / lang / "provenance.yml").read_text(encoding="utf-8"))
        assert gpu_job_plugin.CUT_REASON in words["skip_reasons"], lang


def a_job_folder(tmp_path: Path) -> Path:
    """A folder as a GPU run leaves it: a verification record (built as the plugin builds it), two snippet runs
    written by the tests' listener, the GPU outputs record made from them, committed GPU benchmark records."""
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
    m = {"run_name": "2026-12-01-h200", "cut": []}
    gpu_job.gpu_outputs(folder, m)
    (folder / "benchmarks").mkdir()
    for source in (DOCS / "data" / "benchmarks").glob("*_cuda_*.json"):
        shutil.copy(source, folder / "benchmarks")
    return folder


def test_a_job_folder_holds_records_the_site_loads(tmp_path):
    folder = a_job_folder(tmp_path)
    assert gpu_job.check_folder(folder) == []
    [written] = (folder / "gpu-outputs").iterdir()
    assert written.name == "2026-12-01_cuda_nvidia-h200.json"  # its verification record's name, as docs/data has it
    outputs = json.loads(written.read_text(encoding="utf-8"))
    # only the snippet that names CUDA, as it printed it
    assert outputs["outputs"] == {"snippets/devices/gpu_details.py": "1 GPU(s); cuda:0 = NVIDIA H200\n"}
    assert outputs["source"].startswith("shared/gpu-runs/2026-12-01-h200/snippet-outputs/")


def test_the_check_names_a_record_the_site_would_refuse(tmp_path):
    folder = a_job_folder(tmp_path)
    bench = next((folder / "benchmarks").iterdir())
    record = json.loads(bench.read_text(encoding="utf-8"))
    del record["test_accuracy"]
    bench.write_text(json.dumps(record), encoding="utf-8")
    problems = gpu_job.check_folder(folder)
    assert len(problems) == 1 and bench.name in problems[0] and "field 'test_accuracy'" in problems[0], problems


def test_a_snippet_that_failed_or_printed_nothing_is_left_out_of_the_gpu_outputs(tmp_path):
    folder = tmp_path / "run"
    gpu_job_plugin.write_snippet_run(folder / "snippet-outputs", "snippets/devices/gpu_details.py",
                                     Run("python x", 1, "half", "Traceback"))
    gpu_job_plugin.write_snippet_run(folder / "snippet-outputs", "snippets/performance/cuda_events.py",
                                     Run("python y", 0, "", ""))
    verification = {"date": "2026-12-01T10:00:00Z", "device_type": "cuda", "device_name": "NVIDIA H200",
                    "torch_version": "2.11.0", "commit": "0" * 40}
    record, left = gpu_job.gpu_outputs_record(verification, "v.json", gpu_job.snippet_runs(folder), "x")
    assert record["outputs"] == {}
    assert left == ["snippets/devices/gpu_details.py: exited with status 1",
                    "snippets/performance/cuda_events.py: printed nothing"]


def test_a_page_blocks_run_with_its_warnings_is_written_as_json():
    # block-outputs/<worker>.jsonl: a block's run holds the warnings it raised (block_warnings.Warned), which json
    # cannot write as they are; one such block (legacy.md's) stopped the job's tests stage with an internal error
    warned = Warned("FutureWarning", "old spelling", str(REPO / "snippets/x.py"), 3)
    line = json.dumps(gpu_job_plugin.what_ran(("1\n", (warned,))))
    assert json.loads(line) == {"printed": "1\n", "warnings": ["FutureWarning: old spelling (snippets/x.py:3)"]}
    assert gpu_job_plugin.what_ran(None) == {"printed": None, "warnings": []}


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
    kept = [line for line in done.stdout.splitlines() if "::" in line]
    kept_blocks = {int(n) for n in re.findall(r"^docs/en/tensors\.md::block (\d+)", "\n".join(kept), re.M)}
    # every block whose code names CUDA is kept (so are those with a GPU mark), and some block is left out
    blocks = page_blocks(DOCS / "en" / "tensors.md")
    assert {b.index for b in blocks if gpu_job.CUDA_CODE.search(b.expanded.code)} <= kept_blocks
    assert kept_blocks and len(kept_blocks) < len(blocks), kept_blocks
    assert "tests/test_tensors.py::test_cpu_scalar_tensor_mixes_with_cuda" in kept  # marked cuda
    assert "tests/test_tensors.py::test_get_device_is_minus_one_on_cpu" not in kept  # no CUDA in its code
    assert any("deselected" in line for line in done.stdout.splitlines()), done.stdout[-2000:]


def test_bad_arguments_get_one_line(tmp_path):
    (tmp_path / "x").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        gpu_job.main(["--out", str(tmp_path)])
    assert str(stop.value) == f"gpu_job.py: --out {tmp_path}: exists and is not an empty folder"
    with pytest.raises(SystemExit) as stop:
        gpu_job.main([])
    assert str(stop.value).startswith("gpu_job.py: say where the run's folder goes")


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
