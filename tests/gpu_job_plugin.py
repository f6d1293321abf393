"""pytest plugin for the GPU job (tools/gpu_job.py): only the tests whose outcome depends on a CUDA GPU, what each
page block and each snippet program printed, and a time limit after which the tests left are skipped, not killed.

Loaded only by the job (`-p gpu_job_plugin`); an ordinary run never sees it. Options:
  --gpu-job-select         keep the tests a GPU can change: a GPU mark (site_pages.BLOCK_MARKS), a page block whose
                           code names CUDA, a test whose code does, or a test of a snippet program whose code does;
                           a test that reads the built site is left out (no GPU changes the site)
  --gpu-job-outputs DIR    write DIR/snippet-outputs/<snippet, / as _>.out/.err/.rc/.json and
                           DIR/block-outputs/<process>.jsonl (each page block: what it printed, what the page shows)
  --gpu-job-stop-at T      a test that would start after T (seconds since the epoch) is skipped with CUT_REASON,
                           so the run still ends with its verification record
"""

from __future__ import annotations

import inspect
import json
import os
import re
import time
from pathlib import Path

import pytest

import snippet_runs
from codeblocks_plugin import PageBlockItem, _passed_runs, block_digest
from site_pages import BLOCK_MARKS, REPO

# code that names CUDA: what runs differently, or is skipped, on a machine with a CUDA GPU
CUDA_CODE = re.compile(r"\bcuda\b|\bCUDA\b|HAS_CUDA|cuda_device_count")
SNIPPET_IN_ID = re.compile(r"(snippets/[\w/]+\.py)")
CUT_REASON = "not run: the GPU job's time for tests ran out"


def pytest_addoption(parser):
    group = parser.getgroup("gpu job (tools/gpu_job.py)")
    group.addoption("--gpu-job-select", action="store_true", help="only the tests a CUDA GPU can change")
    group.addoption("--gpu-job-outputs", type=Path, metavar="DIR", help="record what blocks and snippets printed")
    group.addoption("--gpu-job-stop-at", type=float, metavar="T", help="skip tests not started by T (epoch seconds)")


def snippet_output_name(snippet: str) -> str:
    """snippets/devices/gpu_details.py -> snippets_devices_gpu_details.py (the 2026-11-22 run's naming)."""
    return snippet.replace("/", "_")


def write_snippet_run(folder: Path, snippet: str, run) -> None:
    """One program's run as <name>.out, .err, .rc and .json (its path, command, status), each file written whole
    (two workers may write the same run)."""
    folder.mkdir(parents=True, exist_ok=True)
    base = snippet_output_name(snippet)
    about = json.dumps({"snippet": snippet, "command": run.command, "returncode": run.returncode}) + "\n"
    for suffix, text in ((".out", run.stdout), (".err", run.stderr), (".rc", f"{run.returncode}\n"),
                         (".json", about)):
        part = folder / f"{base}{suffix}.{os.getpid()}.part"
        part.write_text(text, encoding="utf-8")
        part.replace(folder / f"{base}{suffix}")


def _code_names_cuda(item) -> bool:
    if isinstance(item, PageBlockItem):
        return bool(CUDA_CODE.search(item.obj.code))
    function = getattr(item, "function", None)
    try:
        if function is not None and CUDA_CODE.search(inspect.getsource(function)):
            return True
    except (OSError, TypeError):
        pass
    snippet = SNIPPET_IN_ID.search(item.nodeid.split("::", 1)[-1])
    return bool(snippet and (REPO / snippet[1]).is_file()
                and CUDA_CODE.search((REPO / snippet[1]).read_text(encoding="utf-8")))


def gpu_relevant(item) -> bool:
    """Whether a CUDA GPU can change this test's outcome (see the module's docstring)."""
    if any(mark.name in BLOCK_MARKS for mark in item.iter_markers()):
        return True
    if "built_site" in getattr(item, "fixturenames", ()):
        return False
    return _code_names_cuda(item)


def pytest_configure(config):
    # the verification record's summary imports torch and torchvision (its CUDA GPUs, bench.py's device names): in
    # an xdist controller, which collects nothing, that import would come at the end, after the job's time for
    # tests (a busy 2-core machine took over 50 s there, and the stage was stopped before the record); it comes
    # here, beside the workers'
    if config.getoption("verification_record", False):
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    folder = config.getoption("gpu_job_outputs")
    if folder is not None:
        snippet_runs.run_listeners.append(
            lambda snippet, run: write_snippet_run(folder / "snippet-outputs", snippet, run))

def pytest_collection_modifyitems(config, items):
    if not config.getoption("gpu_job_select"):
        return
    kept = [item for item in items if gpu_relevant(item)]
    dropped = [item for item in items if item not in set(kept)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    stop_at = item.config.getoption("gpu_job_stop_at")
    if stop_at is not None and time.time() > stop_at:
        if snippet_runs._pool.cache_info().currsize and _CUT not in item.config.stash:
            # programs queued for later tests: none of those will run; the ones running are kept to be killed
            # (shutdown forgets its processes)
            pool = snippet_runs._pool()
            item.config.stash[_CUT] = list((pool._processes or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
        pytest.skip(CUT_REASON)


_CUT = pytest.StashKey[list]()


def pytest_unconfigure(config):
    # a cut run ends now: the programs still running for tests that will not read them are killed, or the
    # interpreter's exit would wait for them (concurrent.futures joins its pools' processes); what they started,
    # tools/gpu_job.py's supervisor ends
    for process in config.stash.get(_CUT, []):
        process.kill()


def what_ran(run: tuple[str, tuple] | None) -> dict:
    """A page block's one run (codeblocks_plugin._passed_runs: what it printed, the warnings it raised) as JSON
    fields; None for a block that did not run to its end."""
    printed, warned = run or (None, ())
    return {"printed": printed, "warnings": [str(w) for w in warned]}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    folder = item.config.getoption("gpu_job_outputs")
    if call.when == "call" and isinstance(item, PageBlockItem) and folder is not None:
        block = {
            "test": item.nodeid,
            "marks": [m.name for m in item.iter_markers() if m.name in BLOCK_MARKS],
            "outcome": report.outcome,
            **what_ran(_passed_runs.get(block_digest(item.obj.syntax, item.obj.code))),
            "shown": item.obj.expected_output,
            "message": None if report.passed else str(report.longrepr)[-3000:],
        }
        # one line per block as it ends, one file per process: a run stopped later keeps what it had
        (folder / "block-outputs").mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(folder / "block-outputs" / f"{worker}.jsonl", "a", encoding="utf-8") as out:
            out.write(json.dumps(block, ensure_ascii=False) + "\n")
    return report
