"""The GPU job: on a machine with a CUDA GPU, run only what needs one, within a time budget, and leave every
record in one folder (`make gpu-job`; how to run it on a lent GPU: tools/README.md).

    python3 tools/gpu_job.py --out /tmp/gpu-run --archive $OUT/gpu-run.tar.gz    # on the GPU
    .venv/bin/python tools/gpu_job.py --dry-run --out gpu-run/rehearsal           # the rehearsal, on a CPU

Stages, each with its own time limit so that a slow one cannot eat the next one's time:
  env    versions, the GPU (nvidia-smi), the commit, the CPU gauge's reading while the machine is idle (the
         benchmark's --quiet-gauge), MNIST decompressed from the carried copy
  tests  pytest on the page blocks and tests a CUDA GPU can change (tests/gpu_job_plugin.py), with
         --verification-record; each page block's output and each snippet program's output recorded; tests not
         started by the stage's soft limit are skipped (and say so in the record), a hard limit kills the run
  gpu-outputs  the docs/data/gpu-outputs record of the snippets that name CUDA, from what they printed
  bench  snippets/mnist/bench.py for every rung at batch 64, 256 and 1024 with --probe-loader: first the cheap
         rungs (resident*) with bench.py's default epochs, then the DataLoader rungs with as many timed epochs as
         the time left allows (estimated from the newest GPU records in docs/data/benchmarks)
The folder: manifest.json and README.md (what ran, stage times, what was cut, how to copy the records), env.txt,
verification/, gpu-outputs/, benchmarks/ (named as in docs/data/), snippet-outputs/, block-outputs.json, logs/.

--dry-run rehearses all of it on a CPU: the same stages, selection, writers and checks; CUDA blocks are skipped
with their reason through the same record; the benchmark runs on the CPU with one timed epoch; no gpu-outputs
record is written (nothing ran on a GPU), which the manifest says.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import signal
import subprocess
import sys
import tarfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "docs" / "data"
BATCH_SIZES = (64, 256, 1024)
SLOW_RUNGS = ("dataloader", "dataloader-tuned")  # the CPU makes their batches: seconds per epoch on any GPU
DEFAULT_EPOCHS = 5  # bench.py's TIMED_EPOCHS: what the cheap rungs get
MIN_EPOCHS = 1
BENCH_START_SECONDS = 20
# after the tests' soft limit, the tests running then may finish, and pytest writes the verification record (in an
# xdist run the controller imports torch for it): then the stage is stopped (Ctrl-C; such a run writes no record)
HARD_MARGIN = 60  # one bench.py process: torch, CUDA, MNIST, the device's peak
# test files the job does not collect, and why: they check the built site, the notebooks or the records, which
# no GPU changes, and they import what the GPU machine lacks (Chromium, Jupyter, jieba, which has no wheel to carry)
LEAVE_OUT = {
    "tests/test_browser_home.py": "the built site in Chromium",
    "tests/test_browser_notebooks.py": "the built site in Chromium",
    "tests/test_browser_pages.py": "the built site in Chromium",
    "tests/test_browser_search.py": "the built site in Chromium",
    "tests/test_notebooks.py": "the notebooks, run by Jupyter",
    "tests/test_glossary.py": "the glossary and search words (imports jieba)",
    "tests/test_site.py": "the built site (imports jieba)",
    "tests/test_verification.py": "the verification records and stamps (imports jieba)",
    "tests/test_zh_comments.py": "the Chinese comments and notebooks (imports nbformat)",
}
CUDA_CODE = re.compile(r"\bcuda\b|\bCUDA\b|HAS_CUDA|cuda_device_count")  # as tests/gpu_job_plugin.py
RECORD_NAME = re.compile(r"^snippets/[a-z_]+/[a-z_]+\.py$")  # docs/data/gpu-outputs.schema.json's outputs' names
SCHEMAS = {"verification": "verification.schema.json", "gpu-outputs": "gpu-outputs.schema.json",
           "benchmarks": "benchmark.schema.json"}

# what the env stage learns, printed as one JSON line by a fresh interpreter (the parent imports no torch)
ENV_PROBE = r"""
import json, os, platform, subprocess, sys, time
sys.path[:0] = ["tests", "docs/hooks", "snippets/mnist"]
import torch, torchvision
import bench, train
from mnist_data import ensure_local_mnist
gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
quiet = min(bench.gauge() for _ in range(3))  # before anything else runs: the machine's quiet reading
commit, dirty = bench.git_commit(bench.REPO)
print(json.dumps({
    "python": platform.python_version(), "torch": torch.__version__, "torchvision": torchvision.__version__,
    "torch_cuda": torch.version.cuda, "cuda_devices": gpus,
    "device_names": [torch.cuda.get_device_name(i) for i in range(gpus)],
    "cpu": bench.cpu_name(), "cpu_cores": bench.cpu_cores(), "commit": commit, "commit_dirty": dirty,
    "quiet_gauge_seconds": round(quiet, 3), "pipelines": list(train.PIPELINES), "cuda_only": list(train.CUDA_ONLY),
    "mnist": str(ensure_local_mnist()),
}))
"""


def fail(message: str) -> None:
    sys.exit(f"gpu_job.py: {message}")


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- the benchmark's plan --------------------------------------------------------------------------------------

def epoch_estimates(records: list[dict]) -> dict[tuple[str, int], float]:
    """(rung, batch size) -> seconds per epoch, from the newest GPU record of each (median of its timed epochs)."""
    newest: dict[tuple[str, int], dict] = {}
    for r in records:
        if r.get("device_kind") == "cuda":
            key = (r["pipeline"], r["batch_size"])
            if key not in newest or r["date"] > newest[key]["date"]:
                newest[key] = r
    return {key: r["median_seconds_per_epoch"] for key, r in newest.items()}


def estimate(estimates: dict, rung: str, batch: int) -> float:
    """A rung's seconds per epoch: its record's; a resident variant without one, the resident rung's; else the
    slowest known at that batch size."""
    for name in (rung, "resident" if rung.startswith("resident") else None):
        if name and (name, batch) in estimates:
            return estimates[(name, batch)]
    return max((s for (_, b), s in estimates.items() if b == batch), default=15.0)


def group_seconds(estimates: dict, rungs, batch_sizes, epochs: int, probe: bool) -> float:
    """One bench.py call's time: start, then per run the warm-up and timed epochs, the test set (a sixth of an
    epoch's images) and the CPU gauge; with probe, the loader probe (up to 200 steps of the dataloader rung)."""
    total = BENCH_START_SECONDS
    for batch in batch_sizes:
        for rung in rungs:
            total += (1 + epochs + 1 / 6) * estimate(estimates, rung, batch) + 1.0
        if probe and "dataloader" in rungs:
            steps = math.ceil(60000 / batch)
            total += min(200, steps) / steps * estimate(estimates, "dataloader", batch) + 1.0
    return total


def plan_bench(seconds: float, estimates: dict, rungs: list[str], batch_sizes, safety: float = 1.25) -> dict:
    """Epochs for the cheap rungs (bench.py's default) and as many for the DataLoader rungs as fit in `seconds`
    (estimates times `safety`): {"groups": [{"rungs", "epochs", "estimate_seconds"}], "cut": [what was cut]}."""
    slow = [r for r in rungs if r in SLOW_RUNGS]
    fast = [r for r in rungs if r not in SLOW_RUNGS]
    cut, groups = [], []
    fast_seconds = safety * group_seconds(estimates, fast, batch_sizes, DEFAULT_EPOCHS, False) if fast else 0.0
    left = seconds - fast_seconds
    epochs = next((e for e in range(DEFAULT_EPOCHS, MIN_EPOCHS - 1, -1)
                   if safety * group_seconds(estimates, slow, batch_sizes, e, True) <= left), MIN_EPOCHS)
    # the cheap rungs first: their records are sure, and the DataLoader rungs take what is left
    if fast:
        groups.append({"rungs": fast, "epochs": DEFAULT_EPOCHS, "estimate_seconds": round(fast_seconds)})
    if slow:
        if epochs < DEFAULT_EPOCHS:
            cut.append(f"{', '.join(slow)}: {epochs} timed epoch(s) instead of {DEFAULT_EPOCHS} (to fit the time left)")
        groups.append({"rungs": slow, "epochs": epochs,
                       "estimate_seconds": round(safety * group_seconds(estimates, slow, batch_sizes, epochs, True))})
    return {"groups": groups, "cut": cut}


# ---- running a stage ---------------------------------------------------------------------------------------------

def run_stage(name: str, argv: list[str], timeout: float, log: Path, env: dict | None = None) -> dict:
    """Run argv from the repository root, its output to log, killed (its whole process group) after timeout."""
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen(argv, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                   env=env)
        timed_out = False
        try:
            process.wait(timeout=max(1.0, timeout))
        except subprocess.TimeoutExpired:
            timed_out = True
            # Ctrl-C first (pytest then prints what it ran), then SIGTERM, then SIGKILL, to the whole group
            for sig, wait in ((signal.SIGINT, 15), (signal.SIGTERM, 10), (signal.SIGKILL, None)):
                try:
                    os.killpg(process.pid, sig)
                    process.wait(timeout=wait)
                    break
                except ProcessLookupError:
                    break
                except subprocess.TimeoutExpired:
                    continue
    return {"stage": name, "command": shlex.join(argv), "log": log.relative_to(log.parent.parent).as_posix(),
            "seconds": round(time.monotonic() - start, 1), "limit_seconds": round(timeout), "returncode":
            process.returncode, "timed_out": timed_out}


# ---- what the tests left -----------------------------------------------------------------------------------------

def merge_block_outputs(folder: Path) -> int:
    """block-outputs/<process>.jsonl (one per pytest process, a line per block) -> block-outputs.json, by test."""
    parts = sorted((folder / "block-outputs").glob("*.jsonl"))
    blocks = sorted((json.loads(line) for p in parts for line in p.read_text(encoding="utf-8").splitlines()),
                    key=lambda b: b["test"])
    for p in parts:
        p.unlink()
    if (folder / "block-outputs").is_dir():
        (folder / "block-outputs").rmdir()
    if blocks:
        (folder / "block-outputs.json").write_text(json.dumps(blocks, indent=1, ensure_ascii=False) + "\n",
                                                   encoding="utf-8")
    return len(blocks)


def snippet_runs(folder: Path) -> list[dict]:
    """Every recorded program run: {"snippet", "command", "returncode", "stdout"}."""
    runs = []
    for about in sorted((folder / "snippet-outputs").glob("*.json")):
        run = json.loads(about.read_text(encoding="utf-8"))
        run["stdout"] = about.with_suffix(".out").read_text(encoding="utf-8")
        runs.append(run)
    return runs


def short_device(name: str) -> str:
    """NVIDIA H100 80GB HBM3 -> h100: the GPU runs' folder names (../shared/gpu-runs/2026-11-22-h100)."""
    words = re.sub("[^a-z0-9]+", " ", name.lower()).split()
    words = [w for w in words if w not in ("nvidia", "tesla", "geforce")] or ["gpu"]
    return words[0]


def gpu_outputs_record(verification: dict, runs: list[dict], run_name: str, repo: Path = REPO) -> tuple[dict, list]:
    """The docs/data/gpu-outputs record of a GPU run (its verification record, its snippet runs): what each snippet
    that names CUDA printed, where it exited 0 and printed something; and what was left out, with why."""
    outputs, left = {}, []
    for run in runs:
        snippet = run["snippet"]
        source = repo / snippet
        if not (source.is_file() and CUDA_CODE.search(source.read_text(encoding="utf-8"))):
            continue
        why = ("exited with status " + str(run["returncode"]) if run["returncode"] else
               "printed nothing" if not run["stdout"] else
               "its name is not one the schema allows" if not RECORD_NAME.match(snippet) else None)
        if why:
            left.append(f"{snippet}: {why}")
        else:
            outputs[snippet] = run["stdout"]
    date = verification["date"][:10]
    device = re.sub("[^a-z0-9]+", "-", verification["device_name"].lower()).strip("-")
    return {
        "schema_version": 1,
        "verification_record": f"{date}_{verification['device_type']}_{device}.json",
        "device_name": verification["device_name"],
        "torch_version": verification["torch_version"],
        "date": date,
        "commit": verification["commit"],
        "source": f"shared/gpu-runs/{run_name}/snippet-outputs/<snippet path with / as _>.out, printed by "
                  "`python <snippet>` in that run (tools/gpu_job.py)",
        "outputs": outputs,
    }, left


def validate(folder: Path) -> dict[str, str]:
    """Every record in the folder against its schema: path -> "ok" or the first problem."""
    import jsonschema

    found = {}
    for kind, schema_file in SCHEMAS.items():
        schema = json.loads((DATA / schema_file).read_text(encoding="utf-8"))
        for path in sorted((folder / kind).glob("*.json")):
            error = jsonschema.exceptions.best_match(
                jsonschema.Draft202012Validator(schema).iter_errors(json.loads(path.read_text(encoding="utf-8"))))
            where = "/".join(map(str, error.absolute_path)) if error else ""
            found[path.relative_to(folder).as_posix()] = "ok" if error is None else f"{where}: {error.message}"
    return found


def record_name(kind: str, record: dict) -> str:
    """The file name a record has in docs/data/<kind>/ (tests/verification_record.record_path, bench.record_path)."""
    def slug(name: str) -> str:
        return re.sub("[^a-z0-9]+", "-", name.lower()).strip("-")

    if kind == "verification":
        return f"{record['date'][:10]}_{record['device_type']}_{slug(record['device_name'])}.json"
    if kind == "gpu-outputs":
        return record["verification_record"]
    return (f"{record['date'][:10]}_{record['device_kind']}_{slug(record['device_name'])}_{record['pipeline']}"
            f"_bs{record['batch_size']}.json")


def check_folder(folder: Path) -> list[str]:
    """What is wrong with a job's folder, for a lead who copies its records into docs/data/: each record loads as
    the site's hooks load it (site_pages.load_records: schema, one line per problem) and has the name it would
    have there; a GPU outputs record agrees with its verification record (as tests/test_gpu_outputs.py checks) and
    holds what the snippet programs printed; the manifest and README are there."""
    if str(REPO / "docs" / "hooks") not in sys.path:
        sys.path.insert(0, str(REPO / "docs" / "hooks"))
    from site_pages import load_records  # the hooks' loader (mkdocs: carried to the GPU machine)

    problems = [f"{name}: missing" for name in ("manifest.json", "README.md") if not (folder / name).is_file()]
    loaded = {}
    for kind, schema in SCHEMAS.items():
        try:
            loaded[kind] = load_records(folder / kind, DATA / schema, folder)
        except Exception as error:  # the hooks' PluginError: "<file>: field '<field>': <problem>"
            problems.append(f"{kind}/{error}")
            loaded[kind] = []
        for path, record in zip(sorted((folder / kind).glob("*.json")), loaded[kind], strict=False):
            if path.name != record_name(kind, record):
                problems.append(f"{kind}/{path.name}: named {record_name(kind, record)} in docs/data/{kind}/")
    printed = {run["snippet"]: run["stdout"] for run in snippet_runs(folder)}
    for record in loaded["gpu-outputs"]:
        source = folder / "verification" / record["verification_record"]
        if not source.is_file():
            problems.append(f"gpu-outputs/{record['verification_record']}: no verification record of that name")
        else:
            run = json.loads(source.read_text(encoding="utf-8"))
            if (run["device_name"], run["torch_version"], run["commit"], run["date"][:10]) != (
                    record["device_name"], record["torch_version"], record["commit"], record["date"]):
                problems.append(f"gpu-outputs/{source.name}: device, torch, commit or date differ from its run's")
        problems += [f"gpu-outputs/{record['verification_record']}: {snippet} is not what the run printed"
                     for snippet, text in record["outputs"].items() if printed.get(snippet) != text]
    if (folder / "manifest.json").is_file():
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        problems += [f"manifest.json: no {key}" for key in ("run_name", "env", "stages", "cut", "command")
                     if key not in manifest]
        problems += [f"manifest.json: stage {s.get('stage')} lacks its command or time" for s in
                     manifest.get("stages", []) if not (s.get("command") and isinstance(s.get("seconds"), float))]
    return problems


# ---- the manifest --------------------------------------------------------------------------------------------------

def readme(manifest: dict) -> str:
    """The folder's README: what ran where, each stage's time, what was cut, and how to copy the records."""
    env = manifest.get("env") or {}
    device = ", ".join(env.get("device_names") or []) or f"no CUDA GPU ({env.get('cpu', '?')})"
    lines = [
        f"# GPU job: {manifest['run_name']}{' (rehearsal on a CPU)' if manifest['dry_run'] else ''}", "",
        f"Machine: {device}; {env.get('cpu_cores', '?')} CPU cores ({env.get('cpu', '?')}).",
        f"Software: Python {env.get('python', '?')}, torch {env.get('torch', '?')} (CUDA {env.get('torch_cuda')}), "
        f"torchvision {env.get('torchvision', '?')}.",
        f"Project: commit {env.get('commit')}{' (with changes)' if env.get('commit_dirty') else ''}. "
        f"Started {manifest['started']}, finished {manifest.get('finished') or '(not yet)'}; "
        f"budget {manifest['budget_seconds']} s.", "",
        f"Command: `{manifest['command']}`", "",
        "| stage | seconds | limit | exit | command |", "| --- | --- | --- | --- | --- |",
    ]
    for s in manifest["stages"]:
        status = "killed at its limit" if s.get("timed_out") else s.get("returncode")
        lines.append(f"| {s['stage']} | {s.get('seconds')} | {s.get('limit_seconds')} | {status} | "
                     f"`{s.get('command', '')}` |")
    lines += ["", "## What was cut", ""] + [f"- {c}" for c in manifest["cut"] or ["nothing"]]
    lines += ["", "## Records (checked against docs/data/*.schema.json)", ""]
    lines += [f"- `{path}`: {status}" for path, status in manifest["validation"].items()] or ["- none"]
    lines += [f"- problem: {p}" for p in manifest.get("problems", [])]
    lines += ["", "## Left out of the tests", ""] + ([f"- {x}" for x in manifest.get("left_out", [])] or ["- none"])
    run = manifest["run_name"]
    lines += ["", "## Copying them into the project", "",
              "From the project's root, with this folder at F:", "",
              "```bash",
              "F=gpu-run/" + run + "   # this folder",
              "python3 tools/gpu_job.py --check $F             # each record loads as the site loads it",
              "cp $F/verification/*.json docs/data/verification/   # the pages' verification stamps",
              "cp $F/gpu-outputs/*.json docs/data/gpu-outputs/     # the outputs the pages show",
              "cp $F/benchmarks/*.json docs/data/benchmarks/       # the MNIST page's records",
              f"cp -r $F/. ../shared/gpu-runs/{run}/               # the raw files the gpu-outputs record cites",
              "```", "",
              "A failure in the verification record needs its note in docs/data/verification-notes.yml, or the build "
              "stops. block-outputs.json has every page block that ran: what it printed and what the page shows; "
              "snippet-outputs/ what each snippet program printed."]
    return "\n".join(lines) + "\n"


def save(folder: Path, manifest: dict, archive: Path | None) -> None:
    """manifest.json and README.md; the archive too, after every stage, so a run killed later still returns one."""
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(readme(manifest), encoding="utf-8")
    if archive is not None:
        archive.parent.mkdir(parents=True, exist_ok=True)
        part = archive.with_name(archive.name + ".part")
        with tarfile.open(part, "w:gz") as tar:
            tar.add(folder, arcname=folder.name)
        part.replace(archive)


# ---- the job ---------------------------------------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Run what needs a CUDA GPU, within a time budget, into one folder.")
    parser.add_argument("--out", type=Path, help="the run's folder (made; must be empty or absent)")
    parser.add_argument("--check", type=Path, metavar="DIR", help="only check a job's folder (check_folder), then exit")
    parser.add_argument("--archive", type=Path, help="also keep the folder as this .tar.gz, rewritten after each stage")
    parser.add_argument("--dry-run", action="store_true", help="rehearse on a CPU: same stages, tiny benchmark")
    parser.add_argument("--budget", type=float, default=450, metavar="SECONDS",
                        help="the whole job's time (default 450: inside `timeout 480`)")
    parser.add_argument("--tests-seconds", type=float, default=170, metavar="SECONDS",
                        help="no test starts after this many seconds of the tests stage (default 170); the stage "
                             f"is stopped {HARD_MARGIN} s later")
    parser.add_argument("--stages", nargs="+", default=["env", "tests", "gpu-outputs", "bench"],
                        choices=["env", "tests", "gpu-outputs", "bench"], metavar="STAGE",
                        help="env, tests, gpu-outputs, bench (default: all; env always runs)")
    parser.add_argument("--tests", nargs="+", default=["docs/en", "docs/zh", "tests"], metavar="PATH",
                        help="what pytest collects (default: the pages and tests/)")
    parser.add_argument("--workers", type=int, help="pytest-xdist workers (default: one per core, at most 6)")
    parser.add_argument("--run-name", help="the folder name under ../shared/gpu-runs (default: <date>-<GPU>)")
    args = parser.parse_args(argv)
    if args.check is None and args.out is None:
        fail("say where the run's folder goes: --out DIR (or check one: --check DIR)")
    if args.check is not None:
        if not (args.check / "manifest.json").is_file():
            fail(f"--check {args.check}: not a GPU job's folder (no manifest.json)")
        return args
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        fail(f"--out {args.out}: exists and is not an empty folder")
    if args.budget < 60:
        fail("--budget: at least 60 seconds")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.check is not None:
        problems = check_folder(args.check.resolve())
        print("\n".join(problems) or f"{args.check}: every record loads as the site loads it, named as in docs/data/")
        return 1 if problems else 0
    started = time.monotonic()
    deadline = started + args.budget
    folder = args.out.resolve()
    archive = args.archive.resolve() if args.archive else None
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    python = sys.executable
    manifest = {"tool": "tools/gpu_job.py", "dry_run": args.dry_run, "run_name": args.run_name or "(after env)",
                "command": shlex.join(["python3", "tools/gpu_job.py", *(argv if argv is not None else sys.argv[1:])]),
                "started": now(), "finished": None, "budget_seconds": args.budget, "env": None, "stages": [],
                "cut": [], "bench_plan": None, "validation": {}}

    def left() -> float:
        return deadline - time.monotonic()

    def say(text: str) -> None:
        print(f"[gpu_job {time.monotonic() - started:6.1f} s] {text}", flush=True)

    # env: always (the other stages need its answers)
    stage = run_stage("env", [python, "-c", ENV_PROBE], min(90, left()), folder / "logs" / "env.log")
    stage["command"] = shlex.join([python, "-c", "<ENV_PROBE of tools/gpu_job.py>"])
    manifest["stages"].append(stage)
    lines = (folder / "logs" / "env.log").read_text(encoding="utf-8").strip().splitlines()
    try:
        env = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        save(folder, manifest, archive)
        fail(f"the env stage printed no answer; see {folder / 'logs' / 'env.log'}")
    manifest["env"] = env
    smi = ""
    if not args.dry_run:
        try:
            smi = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired) as error:
            smi = f"nvidia-smi: {error}"
    (folder / "env.txt").write_text(json.dumps(env, indent=1) + "\n\n" + smi, encoding="utf-8")
    if not args.dry_run and not env["cuda_devices"]:
        save(folder, manifest, archive)
        fail("no CUDA GPU is visible here; rehearse with --dry-run")
    date = now()[:10]
    manifest["run_name"] = args.run_name or (f"{date}-{short_device(env['device_names'][0])}" if env["device_names"]
                                             else f"{date}-rehearsal-cpu")
    say(f"env: {env['device_names'] or 'no CUDA GPU'}, torch {env['torch']}, commit {env['commit']}")
    save(folder, manifest, archive)

    if "tests" in args.stages:
        soft = min(args.tests_seconds, left() - 60)
        workers = args.workers or min(6, env["cpu_cores"])
        try:
            import xdist  # noqa: F401  (pytest-xdist: the tests on several cores)
            spread = ["-n", str(workers), "--dist=loadscope"] if workers > 1 else []
        except ImportError:
            spread = []
            manifest["cut"].append("tests: in one process (pytest-xdist is not installed)")
        argv_ = [python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "gpu_job_plugin", "--gpu-job-select",
                 "--gpu-job-outputs", str(folder), "--gpu-job-stop-at", str(round(time.time() + soft)),
                 "--verification-record", "--verification-record-dir", str(folder / "verification"),
                 "--junitxml", str(folder / "logs" / "junit.xml"), "--continue-on-collection-errors", *spread,
                 *args.tests, *(f"--ignore={p}" for p in LEAVE_OUT)]
        manifest["left_out"] = [f"{path}: checks {why}" for path, why in LEAVE_OUT.items()]
        say(f"tests: up to {soft:.0f} s, then the tests left are skipped")
        stage = run_stage("tests", argv_, soft + HARD_MARGIN, folder / "logs" / "pytest.log")
        manifest["stages"].append(stage)
        stage["blocks_recorded"] = merge_block_outputs(folder)
        log = (folder / "logs" / "pytest.log").read_text(encoding="utf-8", errors="replace")
        cut = log.count("not run: the GPU job's time for tests ran out")  # the plugin's CUT_REASON, in -ra lines
        summary = re.findall(r"^=+ (.*(?:passed|failed|error|skipped).*) =+$", log, re.M)
        stage["summary"] = summary[-1] if summary else None
        if stage["timed_out"]:
            written = "" if any((folder / "verification").glob("*.json")) else ": no verification record"
            manifest["cut"].append(f"tests: killed at {stage['limit_seconds']} s{written}")
        elif cut:
            manifest["cut"].append("tests: those not started within the stage's time were skipped (their reason in "
                                   "the verification record: \"not run: the GPU job's time for tests ran out\")")
        say(f"tests: {stage['summary']} in {stage['seconds']} s")
        save(folder, manifest, archive)

    if "gpu-outputs" in args.stages:
        records = sorted((folder / "verification").glob("*.json"))
        if not records:
            manifest["cut"].append("gpu-outputs: not written (no verification record from the tests stage)")
        else:
            verification = json.loads(records[-1].read_text(encoding="utf-8"))
            if verification["device_type"] != "cuda":
                manifest["cut"].append("gpu-outputs: not written (the tests ran on no CUDA GPU)")
            elif verification["commit"] is None:
                manifest["cut"].append("gpu-outputs: not written (no git commit: the record must name one)")
            else:
                record, left_out = gpu_outputs_record(verification, snippet_runs(folder), manifest["run_name"])
                manifest["cut"] += [f"gpu-outputs: left out {why}" for why in left_out]
                if record["outputs"]:
                    (folder / "gpu-outputs").mkdir(exist_ok=True)
                    (folder / "gpu-outputs" / record["verification_record"]).write_text(
                        json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        save(folder, manifest, archive)

    if "bench" in args.stages:
        rungs = [r for r in env["pipelines"] if args.dry_run is False or r not in env["cuda_only"]]
        if args.dry_run:
            manifest["cut"] += [f"bench: {r} (CUDA only) not run in the rehearsal" for r in env["cuda_only"]]
            plan = {"groups": [{"rungs": [r for r in rungs if r not in SLOW_RUNGS], "epochs": 1},
                               {"rungs": [r for r in rungs if r in SLOW_RUNGS], "epochs": 1}],
                    "cut": ["bench: 1 timed epoch per run (the rehearsal)"]}
        else:
            known = [json.loads(p.read_text(encoding="utf-8")) for p in (DATA / "benchmarks").glob("*.json")]
            plan = plan_bench(left() - 15, epoch_estimates(known), rungs, BATCH_SIZES)
        manifest["bench_plan"] = plan
        manifest["cut"] += plan["cut"]
        if env["mnist"] == "None":
            plan["groups"] = []
            manifest["cut"].append("bench: not run (no MNIST: ../shared/data/mnist or .mnist/, see tools/README.md)")
        for i, group in enumerate(plan["groups"]):
            if not group["rungs"]:
                continue
            limit = left() - 10 - sum(g.get("estimate_seconds", 0) for g in plan["groups"][i + 1 :])
            argv_ = [python, "snippets/mnist/bench.py", "--device", "cpu" if args.dry_run else "cuda",
                     "--pipelines", *group["rungs"], "--batch-sizes", *map(str, BATCH_SIZES),
                     "--epochs", str(group["epochs"]), "--probe-loader", "--no-download",
                     "--out", str(folder / "benchmarks")]
            # on the lent GPU machine (nothing else runs there) its own idle reading; in a rehearsal on a shared
            # machine bench.py's (the 2-core CPU's), so a busy machine's runs are flagged, not taken for quiet
            argv_ += [] if args.dry_run else ["--quiet-gauge", str(env["quiet_gauge_seconds"])]
            say(f"bench: {', '.join(group['rungs'])}, {group['epochs']} timed epoch(s), up to {limit:.0f} s")
            if limit < 30:
                manifest["cut"].append(f"bench: {', '.join(group['rungs'])} not run (no time left)")
                continue
            stage = run_stage(f"bench {'+'.join(group['rungs'])}", argv_, limit,
                              folder / "logs" / f"bench-{i + 1}.log")
            manifest["stages"].append(stage)
            if stage["timed_out"]:
                manifest["cut"].append(f"bench: {', '.join(group['rungs'])} killed at {stage['limit_seconds']} s; "
                                       "the runs it had finished have their records")
            save(folder, manifest, archive)

    manifest["validation"] = validate(folder)
    manifest["finished"] = now()
    save(folder, manifest, archive)
    manifest["problems"] = check_folder(folder)
    save(folder, manifest, archive)
    bad = [f"{p}: {v}" for p, v in manifest["validation"].items() if v != "ok"] + manifest["problems"]
    failed = [s["stage"] for s in manifest["stages"] if s["returncode"] != 0]
    say(f"done: {len(manifest['validation'])} records, {len(bad)} problem(s), stages not ok: {failed or 'none'}")
    print((folder / "README.md").read_text(encoding="utf-8"))
    return 1 if bad or failed else 0


if __name__ == "__main__":
    sys.exit(main())
