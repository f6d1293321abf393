"""The GPU job (`make gpu-job`, tools/README.md): on a machine with a CUDA GPU, a fixed plan of stages, each under
its own time limit, every record into one folder whose README says what ran and what was cut.

  env    Python, torch, torchvision, the GPU, the commit, the CPU gauge's idle reading, MNIST
  tests  pytest on what a CUDA GPU can change (tests/gpu_job_plugin.py), with its verification record, each page
         block's and snippet program's output, and from them the docs/data/gpu-outputs record
  bench  snippets/mnist/bench.py, every rung at batch 64, 256 and 1024: the resident rungs with bench.py's timed
         epochs, the DataLoader rungs (seconds per epoch) with 1 timed epoch and the loader probe

Each stage runs under a supervisor (this file, --supervise) that is the subreaper of all the stage starts: when the
stage ends or reaches its limit, whatever it left (a forkserver and its children, a resource tracker, torchrun's
workers in their own sessions) is killed, reaped and named in the README. A stage this Python lacks packages for
is not run, with one line naming them. --dry-run rehearses the plan on a CPU; --check DIR checks a folder's records.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib.util
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "docs" / "data"
BATCH_SIZES = (64, 256, 1024)
RESIDENT = ("resident", "resident-manual", "resident-graph")  # the data on the device: bench.py's default epochs
LOADER = ("dataloader", "dataloader-tuned")  # the CPU makes the batches, seconds per epoch on any GPU: 1 epoch
CUDA_ONLY = ("resident-graph",)
# seconds; a stage at its limit gets Ctrl-C and GRACE more: the whole plan ends within 10 minutes
LIMITS = {"env": 60, "bench resident": 90, "bench dataloader": 180}
GRACE = 10
TESTS_SECONDS, TESTS_MARGIN = 150, 50  # no test starts after the first; killed after both
# the rehearsal, on a CPU that others share: one page's tests and one batch size run the same plan in minutes
DRY_TESTS, DRY_BATCH_SIZES = ["docs/en/devices.md", "docs/zh/devices.md", "tests/test_devices.py"], (1024,)
CUT_REASON = "not run: the GPU job's time for tests ran out"  # tests/gpu_job_plugin.py's, among the record's skips
# what a stage imports beyond torch, torchvision and the standard library: module -> pip name
NEEDS = {"tests": dict(pytest="pytest", pytest_codeblocks="pytest-codeblocks", filelock="filelock",
                       jsonschema="jsonschema", yaml="PyYAML", markdown="Markdown", mkdocs="mkdocs",
                       pymdownx="pymdown-extensions", jinja2="Jinja2"),
         "bench": dict(jsonschema="jsonschema", tqdm="tqdm"),
         "check": dict(jsonschema="jsonschema", yaml="PyYAML", markdown="Markdown", mkdocs="mkdocs",
                       pymdownx="pymdown-extensions")}
# not collected: they check the built site, the notebooks or the records, which no GPU changes
LEAVE_OUT = [f"tests/test_{name}.py" for name in ("browser_home", "browser_notebooks", "browser_pages", "site",
             "browser_search", "notebooks", "glossary", "verification", "zh_comments")]
CUDA_CODE = re.compile(r"\bcuda\b|\bCUDA\b|HAS_CUDA|cuda_device_count")  # as tests/gpu_job_plugin.py
RECORD_NAME = re.compile(r"^snippets/[a-z_]+/[a-z_]+\.py$")  # docs/data/gpu-outputs.schema.json's outputs' names
SCHEMAS = {"verification": "verification.schema.json", "gpu-outputs": "gpu-outputs.schema.json",
           "benchmarks": "benchmark.schema.json"}
ENV_PROBE = r"""
import json, platform, shutil, subprocess, time
import torch, torchvision
def gauge():  # bench.gauge's work: its idle reading here is the benchmark's --quiet-gauge
    start = time.perf_counter(); sum(range(3 * 10**7)); return time.perf_counter() - start
def git(*args):
    done = shutil.which("git") and subprocess.run(["git", *args], capture_output=True, text=True)
    return done.stdout.strip() if done and done.returncode == 0 else None
cpu = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")] or [None]
n = torch.cuda.device_count() if torch.cuda.is_available() else 0
print(json.dumps({"python": platform.python_version(), "torch": torch.__version__, "torch_cuda": torch.version.cuda,
    "torchvision": torchvision.__version__, "devices": [torch.cuda.get_device_name(i) for i in range(n)],
    "cpu": cpu[0], "commit": git("rev-parse", "HEAD"), "changes": git("status", "--porcelain", "-uno"),
    "quiet_gauge_seconds": round(min(gauge() for _ in range(3)), 3)}))
"""


def fail(message: str) -> None:
    sys.exit(f"gpu_job.py: {message}")


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- a stage under its supervisor ----------------------------------------------------------------------------------

def _prctl(option: int, value: int) -> bool:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux
        return False


def descendants(root: int) -> list[int]:
    """The live processes below root, from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError):
            pid, rest = stat.read_text().split(" ", 1)
            state, ppid = rest.rsplit(")", 1)[1].split()[:2]
            if state != "Z":
                children.setdefault(int(ppid), []).append(int(pid))
    found, todo = [], [root]
    while todo:
        below = children.get(todo.pop(), [])
        found += below
        todo += below
    return found


def end_descendants() -> list[str]:
    """Kill every process below this one and reap it (as the subreaper this inherits the orphans): their lines."""
    ended: dict[int, str] = {}
    for _ in range(200):  # 10 s at most: a killed parent's children come here, and die in the next round
        pids = descendants(os.getpid())
        for pid in pids:
            with contextlib.suppress(OSError):
                ended.setdefault(pid, Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200])
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        if not pids:
            break
        time.sleep(0.05)
    return [f"{pid} {line.strip()}" for pid, line in ended.items()]


def supervise(limit: float, log: Path, argv: list[str]) -> None:
    """Run argv (its output to log) in a session of its own; when it ends or at limit, end all it left; print the
    outcome as one JSON line."""
    subreaper = _prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: orphans below come here, not to init
    _prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: the job gone, this ends too, cleaning up
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with open(log, "w", encoding="utf-8") as out:
        child = subprocess.Popen(argv, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    timed_out = False
    try:
        child.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        timed_out = True
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGINT)  # Ctrl-C first: pytest prints what it ran
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=GRACE)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        left = end_descendants() if subreaper else []
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGKILL)  # without a subreaper (not Linux), its group at least
    print(json.dumps({"pid": child.pid, "returncode": child.returncode, "timed_out": timed_out, "left_behind": left}))


def run_stage(name: str, argv: list[str], limit: float, log: Path) -> dict:
    """argv under a supervisor, stopped at limit: {stage, command, log, seconds, limit_seconds, pid, returncode,
    timed_out, left_behind (what it left running, ended after it)}."""
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    done = subprocess.run([sys.executable, __file__, "--supervise", str(limit), str(log), "--", *argv],
                          capture_output=True, text=True, timeout=limit + GRACE + 30)
    try:
        outcome = json.loads(done.stdout.splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        outcome = {"returncode": None, "timed_out": False, "left_behind": [f"(supervisor) {done.stderr[-300:]}"]}
    return {"stage": name, "command": shlex.join(argv), "log": log.name, "seconds": round(time.monotonic() - start, 1),
            "limit_seconds": round(limit), **outcome}


# ---- what the stages leave ---------------------------------------------------------------------------------------

def missing(stage: str) -> str | None:
    """What this Python lacks for a stage, and the pip line (pins from requirements.txt, constraints.txt)."""
    lacks = [pip for module, pip in NEEDS[stage].items() if importlib.util.find_spec(module) is None]
    pins = {line.split("==")[0].lower(): line.split()[0] for name in ("requirements.txt", "constraints.txt")
            for line in (REPO / name).read_text(encoding="utf-8").splitlines() if re.match(r"[\w.-]+==", line)}
    pip = " ".join(pins.get(name.lower(), name) for name in lacks)
    return lacks and f"this Python lacks {', '.join(lacks)} (pip install {pip})"


def snippet_runs(folder: Path) -> list[dict]:
    """Every recorded program run: {"snippet", "command", "returncode", "stdout"}."""
    return [{**json.loads(p.read_text(encoding="utf-8")), "stdout": p.with_suffix(".out").read_text(encoding="utf-8")}
            for p in sorted((folder / "snippet-outputs").glob("*.json"))]


def short_device(name: str) -> str:
    """NVIDIA H100 80GB HBM3 -> h100: the GPU runs' folder names (../shared/gpu-runs/2026-11-22-h100)."""
    return next((w for w in re.split("[^a-z0-9]+", name.lower()) if w not in ("", "nvidia", "tesla", "geforce")), "gpu")


def gpu_outputs_record(verification: dict, record_file: str, runs: list[dict], run_name: str) -> tuple[dict, list]:
    """The docs/data/gpu-outputs record of a GPU run (its verification record and that record's file name, its
    snippet runs): what each snippet that names CUDA printed, where it exited 0 and printed something; and what was
    left out, with why."""
    outputs, left = {}, []
    for run in runs:
        source = REPO / run["snippet"]
        if not (source.is_file() and CUDA_CODE.search(source.read_text(encoding="utf-8"))):
            continue
        why = (f"exited with status {run['returncode']}" if run["returncode"] else "printed nothing"
               if not run["stdout"] else None if RECORD_NAME.match(run["snippet"]) else "a name the schema refuses")
        left += [f"{run['snippet']}: {why}"] if why else []
        outputs.update({} if why else {run["snippet"]: run["stdout"]})
    return {"schema_version": 1, "verification_record": record_file, "device_name": verification["device_name"],
            "torch_version": verification["torch_version"], "date": verification["date"][:10],
            "commit": verification["commit"], "outputs": outputs,
            "source": f"shared/gpu-runs/{run_name}/snippet-outputs/<snippet path with / as _>.out, printed by "
                      "`python <snippet>` in that run (tools/gpu_job.py)"}, left


def gpu_outputs(folder: Path, m: dict) -> None:
    """From the tests stage's verification record: the tests it cut, and the gpu-outputs record."""
    records = sorted((folder / "verification").glob("*.json"))
    if not records:
        m["cut"].append("gpu-outputs: not written (the tests stage wrote no verification record)")
        return
    verification = json.loads(records[-1].read_text(encoding="utf-8"))
    if cut := verification["totals"]["skip_reasons"].get(CUT_REASON):
        m["cut"].append(f"tests: {cut} not started within the stage's time, skipped as \"{CUT_REASON}\"")
    if verification["device_type"] != "cuda" or verification["commit"] is None:
        m["cut"].append("gpu-outputs: not written (the tests ran on no CUDA GPU, or outside a git checkout)")
        return
    record, left_out = gpu_outputs_record(verification, records[-1].name, snippet_runs(folder), m["run_name"])
    m["cut"] += [f"gpu-outputs: left out {why}" for why in left_out]
    if record["outputs"]:
        (folder / "gpu-outputs").mkdir(exist_ok=True)
        (folder / "gpu-outputs" / records[-1].name).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                                                                 encoding="utf-8")


def check_folder(folder: Path) -> list[str]:
    """Each record of a job's folder loaded as the site's hooks load it (site_pages.load_records): the problems."""
    sys.path.insert(0, str(REPO / "docs" / "hooks"))
    from site_pages import load_records

    problems = []
    for kind, schema in SCHEMAS.items():
        try:
            load_records(folder / kind, DATA / schema, folder)
        except Exception as error:  # the hooks' PluginError: "<file>: field '<field>': <problem>"
            problems.append(f"{kind}/{error}")
    return problems


def readme(m: dict) -> str:
    """The folder's README: where it ran, each stage's time and outcome, what was cut, the records."""
    env, folder = m["env"] or {}, Path(m["folder"])
    pin = re.search(r"^torch==(\S+)", (REPO / "requirements.txt").read_text(encoding="utf-8"), re.M)
    lines = [f"# GPU job: {m['run_name']}{' (rehearsal on a CPU)' if m['dry_run'] else ''}", "",
             f"Ran on {', '.join(env.get('devices') or []) or 'no CUDA GPU'} ({env.get('cpu')}, {os.cpu_count()} "
             f"cores) with Python {env.get('python')}, torch {env.get('torch')} (CUDA {env.get('torch_cuda')}), "
             f"torchvision {env.get('torchvision')}; commit {env.get('commit')}"
             f"{' with changes' * bool(env.get('changes'))}; {m['started']} to {m['finished'] or '(running)'}."]
    if env.get("torch") and pin and env["torch"].split("+")[0] != pin[1]:
        lines.append(f"The project pins torch {pin[1]}: what a page says of {pin[1]} alone was not checked here.")
    lines += ["", f"Command: `{m['command']}`", "", "| stage | seconds | limit | exit | left running, ended | "
              "command |", "| --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {s['stage']} | {s['seconds']} | {s['limit_seconds']} | "
              f"{'killed at its limit' if s['timed_out'] else s['returncode']} | {len(s['left_behind'])} | "
              f"`{s['command'][:300]}` |" for s in m["stages"]]
    lines += [f"- after {s['stage']}, ended: `{p}`" for s in m["stages"] for p in s["left_behind"]]
    lines += ["", "## What was cut", ""] + [f"- {c}" for c in m["cut"] or ["nothing"]] + ["", "## Records", ""]
    lines += [f"- `{p.relative_to(folder)}`" for kind in SCHEMAS
              for p in sorted((folder / kind).glob("*.json"))] or ["- none"]
    lines += [f"- problem: {p}" for p in m["problems"]] + [
        "", "Copy `verification/`, `gpu-outputs/` and `benchmarks/` into `docs/data/` (`tools/gpu_job.py --check "
        f"<this folder>` loads them as the site does first), and the folder to `../shared/gpu-runs/{m['run_name']}/`"
        " (the gpu-outputs record's source). block-outputs/: what each page block printed and what its page "
        "shows; snippet-outputs/: what each snippet program printed; logs/: each stage's output."]
    return "\n".join(lines) + "\n"


def save(folder: Path, m: dict) -> None:
    (folder / "manifest.json").write_text(json.dumps(m, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(readme(m), encoding="utf-8")


# ---- the plan ----------------------------------------------------------------------------------------------------

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Run what a CUDA GPU can change, as a fixed plan, into one folder.")
    parser.add_argument("--out", type=Path, help="the run's folder (made; must be empty or absent)")
    parser.add_argument("--check", type=Path, metavar="DIR", help="only check a finished job's records, then exit")
    parser.add_argument("--dry-run", action="store_true", help="rehearse on a CPU: the devices page's tests, the "
                        f"benchmark at batch {DRY_BATCH_SIZES[0]} with 1 timed epoch")
    parser.add_argument("--stages", nargs="+", default=["tests", "bench"], choices=["tests", "bench"],
                        help="tests, bench (default: both; env always runs)")
    parser.add_argument("--tests", nargs="+", metavar="PATH", help="what pytest collects (default: the pages and "
                        "tests/; with --dry-run, the devices page and its tests)")
    parser.add_argument("--tests-seconds", type=float, default=TESTS_SECONDS, metavar="SECONDS",
                        help=f"no test starts after this (default {TESTS_SECONDS}); killed {TESTS_MARGIN} s later")
    parser.add_argument("--workers", type=int, help="pytest-xdist workers (default: one per core, at most 6)")
    args = parser.parse_args(argv)
    if args.check is None and args.out is None:
        fail("say where the run's folder goes: --out DIR (or check one: --check DIR)")
    if args.out is not None and args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        fail(f"--out {args.out}: exists and is not an empty folder")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--supervise"]:  # LIMIT LOG -- COMMAND...: run_stage's supervisor
        supervise(float(argv[1]), Path(argv[2]), argv[4:])
        return 0
    args = parse_args(argv)
    if args.check is not None:
        if lacks := missing("check"):
            fail(f"--check: {lacks}")
        problems = check_folder(args.check.resolve())
        print("\n".join(problems) or f"{args.check}: every record loads as the site loads it")
        return 1 if problems else 0
    folder, python, started = args.out.resolve(), sys.executable, time.monotonic()
    m = {"folder": str(folder), "dry_run": args.dry_run, "run_name": "(after env)", "started": now(), "finished": None,
         "command": shlex.join(["python3", "tools/gpu_job.py", *argv]), "env": None, "stages": [], "cut": [],
         "not_run": [], "problems": []}

    def stage(name: str, command: list[str], limit: float) -> dict:
        print(f"[gpu_job {time.monotonic() - started:4.0f} s] {name}, up to {limit:.0f} s", flush=True)
        s = run_stage(name, command, limit, folder / "logs" / f"{name.replace(' ', '-')}.log")
        m["stages"].append(s)
        m["cut"] += [f"{name}: killed at its limit ({s['limit_seconds']} s)"] if s["timed_out"] else []
        save(folder, m)
        return s

    stage("env", [python, "-c", ENV_PROBE], LIMITS["env"])["command"] = f"{python} -c <ENV_PROBE>"
    try:
        env = json.loads((folder / "logs" / "env.log").read_text(encoding="utf-8").splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        fail(f"the env stage printed no answer (do torch and torchvision import?): {folder / 'logs' / 'env.log'}")
    sys.path.insert(0, str(REPO / "tests"))
    from mnist_data import ensure_local_mnist  # the .gz files of ../shared/data/mnist or .mnist/, decompressed

    env["mnist"] = ensure_local_mnist() is not None
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        env["nvidia_smi"] = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30).stdout
    m["env"], m["run_name"] = env, f"{now()[:10]}-{short_device(env['devices'][0]) if env['devices'] else 'cpu'}"
    save(folder, m)
    if not args.dry_run and not env["devices"]:
        fail("no CUDA GPU is visible here; rehearse with --dry-run")

    if "tests" in args.stages and (lacks := missing("tests")):
        m["cut"].append(f"tests: not run: {lacks}")
        m["not_run"].append("tests")
    elif "tests" in args.stages:
        soft, tests = args.tests_seconds, args.tests or (DRY_TESTS if args.dry_run else ["docs/en", "docs/zh", "tests"])
        workers = args.workers or min(6, os.cpu_count() or 1)
        spread = ["-n", str(workers), "--dist=loadscope"] if workers > 1 and importlib.util.find_spec("xdist") else []
        m["cut"] += [] if spread or workers == 1 else ["tests: in one process (pytest-xdist is not installed)"]
        m["cut"].append(f"tests: not collected (no GPU changes what they check): {', '.join(LEAVE_OUT)}")
        s = stage("tests", [python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "gpu_job_plugin",
                            "--gpu-job-select", "--gpu-job-outputs", str(folder),
                            "--gpu-job-stop-at", str(round(time.time() + soft)),
                            "--verification-record", "--verification-record-dir", str(folder / "verification"),
                            "--junitxml", str(folder / "logs" / "junit.xml"), "--continue-on-collection-errors",
                            *spread, *tests, *(f"--ignore={p}" for p in LEAVE_OUT)], soft + TESTS_MARGIN)
        summary = re.findall(r"^=+ (.*\d+ (?:passed|failed|errors?|skipped).*) =+$",
                             (folder / "logs" / "tests.log").read_text(encoding="utf-8", errors="replace"), re.M)
        s["summary"] = summary[-1] if summary else None
        gpu_outputs(folder, m)
        save(folder, m)

    if "bench" in args.stages and (lacks := missing("bench")):
        m["cut"].append(f"bench: not run: {lacks}")
        m["not_run"].append("bench")
    elif "bench" in args.stages:
        sizes = DRY_BATCH_SIZES if args.dry_run else BATCH_SIZES
        common = ["--device", "cpu" if args.dry_run else "cuda", "--batch-sizes", *map(str, sizes),
                  "--out", str(folder / "benchmarks"), *(["--no-download"] if env["mnist"] else [])]
        # on the GPU machine its own idle gauge; in a rehearsal bench.py's, and one thread (a shared CPU's cores
        # oversubscribed slow a step by 100 times)
        common += ["--threads", "1"] if args.dry_run else ["--quiet-gauge", str(env["quiet_gauge_seconds"])]
        m["cut"].append("bench: the DataLoader rungs with 1 timed epoch each, not bench.py's 5")
        m["cut"] += [f"bench: resident-graph not run (CUDA only); batch {sizes[0]} only, 1 timed epoch for every "
                     "rung, 1 CPU thread (the rehearsal)"] * args.dry_run
        for name, rungs, more in (("bench resident", [r for r in RESIDENT if not (args.dry_run and r in CUDA_ONLY)],
                                   ["--epochs", "1"] * args.dry_run),
                                  ("bench dataloader", LOADER, ["--epochs", "1", "--probe-loader"])):
            s = stage(name, [python, "snippets/mnist/bench.py", "--pipelines", *rungs, *more, *common], LIMITS[name])
            m["cut"][-1] += "; the runs it finished have their records" * s["timed_out"]

    if lacks := missing("check"):
        m["cut"].append(f"records not loaded as the site loads them: {lacks}; run --check where the project is")
    else:
        m["problems"] = check_folder(folder)
    m["finished"] = now()
    save(folder, m)
    print((folder / "README.md").read_text(encoding="utf-8"))
    return 1 if m["problems"] or m["not_run"] or any(s["returncode"] != 0 for s in m["stages"]) else 0


if __name__ == "__main__":
    sys.exit(main())
