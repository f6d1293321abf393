"""The compatibility run's worker, started by tools/compat_run.py with the interpreter of one release's venv (which
holds torch, torchvision and the snippets' few other packages, but none of the site's): it imports torch once, then
runs each job of a JSON file the way the tests run a page's block, and writes one JSON line per job.

A job is {"id", "kind": "exec" | "program" | "shell" | "names", "code", "args"}:
- exec: a page's Python block, run with exec() as pytest-codeblocks runs it;
- program: a whole snippet file, run as `python <file> <args>` (tests/snippet_runs.py);
- shell: a page's bash block, with this venv's `python`/`torchrun` first on PATH;
- names: a CUDA-only block, not run: which of its dotted torch names this release lacks.
exec and program jobs run in a process forked from this one (torch already imported, CUDA not started); a job's
warnings are caught by warnings.showwarning here, and in the processes a shell job starts by
compat_site/sitecustomize.py.
Standard library only: it runs in venvs of every release.
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SITE = Path(__file__).resolve().parent / "compat_site"  # its sitecustomize records a shell job's warnings
TIMEOUT_S = 600
KEPT = (DeprecationWarning, PendingDeprecationWarning, FutureWarning, UserWarning)


def warning_entry(category: type, message: str, filename: str, lineno: int, block_file: str) -> dict | None:
    """A warning as a record keeps it: category, the message's first line, and where, when that is the block's own
    code (block_file) or a snippet of this repository; None for a warning of another kind."""
    if not issubclass(category, KEPT):
        return None
    where = None
    path = Path(filename) if filename.startswith("<") else REPO / filename  # a program's own path is relative
    if filename == block_file:
        where = f"block:{lineno}"
    elif path.resolve().is_relative_to(REPO / "snippets"):
        where = f"{path.resolve().relative_to(REPO).as_posix()}:{lineno}"
    return {"category": category.__name__, "message": (str(message).strip().splitlines() or [""])[0], "where": where}


def first_error_line(text: str) -> str:
    """The line of a traceback or a program's error output that names the error: the last line that starts with an
    exception's name (`ValueError: ...`), else the last non-empty line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        head = line.split(":", 1)[0]
        if head.replace(".", "").isidentifier() and (head.endswith(("Error", "Exception", "Interrupt", "Exit"))
                                                     or head.rsplit(".", 1)[-1].endswith("Error")):
            return line[:300]
    return lines[-1][:300] if lines else ""


def _in_fork(job: dict, out_path: str) -> None:
    """The job, in this freshly forked process: stdout and stderr to files, its warnings recorded, then exit."""
    block_file = f"<compat block {job['id']}>"
    caught: list[dict] = []

    def record(message, category, filename, lineno, file=None, line=None):
        if (entry := warning_entry(category, str(message), filename, lineno, block_file)) and entry not in caught:
            caught.append(entry)

    warnings.resetwarnings()
    warnings.simplefilter("default")
    warnings.showwarning = record
    for fd, suffix in ((1, ".out"), (2, ".err")):  # C-level output too
        with open(out_path + suffix, "wb") as f:
            os.dup2(f.fileno(), fd)
    signal.alarm(TIMEOUT_S)  # its default action ends the process: run_forked reports the time-out
    status, error = 0, None
    try:
        if job["kind"] == "program":
            sys.argv = [job["code"], *job["args"]]
            sys.path.insert(0, str((REPO / job["code"]).parent))
            runpy.run_path(job["code"], run_name="__main__")
        else:
            exec(compile(job["code"], block_file, "exec"), {"__MODULE__": "__main__"})
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else (exit_.code is not None)
        if isinstance(exit_.code, str):
            error = exit_.code.splitlines()[0] if exit_.code else None
    except BaseException as exc:  # the block's error is the finding
        traceback.print_exc()
        status, error = 1, f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"[:300]
    sys.stdout.flush()
    sys.stderr.flush()
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"status": status, "error": error, "warnings": caught}, f)
    os._exit(0)


def run_forked(job: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "result.json")
        pid = os.fork()
        if pid == 0:
            try:
                _in_fork(job, path)
            finally:
                os._exit(1)
        _, wait_status = os.waitpid(pid, 0)
        stdout = Path(path + ".out").read_text(errors="replace") if Path(path + ".out").exists() else ""
        stderr = Path(path + ".err").read_text(errors="replace") if Path(path + ".err").exists() else ""
        if os.WIFSIGNALED(wait_status) and os.WTERMSIG(wait_status) == signal.SIGALRM:
            return {"status": 1, "error": f"timed out after {TIMEOUT_S} s", "warnings": [], "stdout": stdout}
        if not Path(path).exists():
            return {"status": 1, "error": f"the process died ({first_error_line(stderr) or wait_status})",
                    "warnings": [], "stdout": stdout}
        result = json.loads(Path(path).read_text())
        if result["status"] and not result["error"]:
            result["error"] = first_error_line(stderr) or f"exit status {result['status']}"
        return result | {"stdout": stdout}


def run_shell(job: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "warnings.jsonl")
        env = dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]),
                   PYTHONPATH=os.pathsep.join(filter(None, [str(SITE), os.environ.get("PYTHONPATH")])),
                   COMPAT_WARNINGS=log)
        try:
            done = subprocess.run(job["code"], shell=True, executable="/bin/bash", cwd=REPO, env=env, text=True,
                                  capture_output=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return {"status": 1, "error": f"timed out after {TIMEOUT_S} s", "warnings": [], "stdout": ""}
        caught: list[dict] = []
        for line in Path(log).read_text().splitlines() if Path(log).exists() else ():
            raw = json.loads(line)
            category = getattr(__import__("builtins"), raw["category"], UserWarning)
            entry = warning_entry(category if isinstance(category, type) else UserWarning, raw["message"],
                                  raw["filename"], raw["lineno"], "")
            if entry and entry not in caught:
                caught.append(entry)
        error = None
        if done.returncode:
            error = first_error_line(done.stderr) or f"exit status {done.returncode}"
        return {"status": done.returncode, "error": error, "warnings": caught, "stdout": done.stdout}


def missing_names(names: list[str]) -> list[str]:
    """The dotted names (torch.x.y) that do not resolve in this torch: attribute by attribute, importing submodules."""
    missing = []
    for name in names:
        parts = name.split(".")
        obj = importlib.import_module(parts[0])
        for i, part in enumerate(parts[1:], 2):
            if hasattr(obj, part):
                obj = getattr(obj, part)
                continue
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                missing.append(name)
                break
    return missing


def main(jobs_file: str, results_file: str) -> None:
    os.chdir(REPO)  # pages show commands relative to the repository root
    # a temporary folder of this run's own: snippets save to fixed names there (linear-state.pt), and another run
    # (the tests, another release) may be using the machine's
    tempfile.tempdir = tempfile.mkdtemp(prefix="compat-")
    os.environ["TMPDIR"] = tempfile.tempdir
    with warnings.catch_warnings(record=True) as at_import:
        warnings.simplefilter("default")
        import torch
        import torchvision
    import_warnings = [e for w in at_import if (e := warning_entry(w.category, str(w.message), w.filename,
                                                                    w.lineno, ""))]
    jobs = json.loads(Path(jobs_file).read_text())
    with open(results_file, "w", encoding="utf-8") as out:
        out.write(json.dumps({"versions": {"python": sys.version.split()[0], "torch": torch.__version__,
                                           "torchvision": torchvision.__version__},
                              "import_warnings": import_warnings}) + "\n")
        out.flush()
        for job in jobs:
            if job["kind"] == "names":
                result = {"missing": missing_names(job["names"])}
            else:
                result = run_shell(job) if job["kind"] == "shell" else run_forked(job)
            out.write(json.dumps({"id": job["id"], **result}) + "\n")
            out.flush()
    shutil.rmtree(tempfile.tempdir, ignore_errors=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
