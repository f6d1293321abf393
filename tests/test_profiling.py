"""What docs/{en,zh}/profiling.md (Timing and profiling) says, asserted on the installed PyTorch: torch.Event,
and a fresh profile of the form the page's recorded table has."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
import torch

from measurements import (
    NAMED_RANGES,
    PROFILE_COLUMNS,
    profile_rows,
)
from site_pages import DOCS, LANGUAGES
from snippet_runs import run_snippet


def test_torch_event_is_the_device_agnostic_event_the_page_describes():
    # what its docstrings say: tests/data/citations.yml
    assert issubclass(torch.cuda.Event, torch.Event)


def test_a_cpu_event_can_be_made_but_not_recorded():
    event = torch.Event(device="cpu", enable_timing=True)
    assert event.device == torch.device("cpu")
    with pytest.raises(RuntimeError) as error:
        event.record()
    assert str(error.value) == "cpu backend doesn't support events."
    for lang in LANGUAGES:
        page = (DOCS / lang / "profiling.md").read_text(encoding="utf-8")
        assert "`RuntimeError: cpu backend doesn't support events.`" in page, lang


@pytest.mark.cuda
def test_event_timing_prints_one_line_of_milliseconds_on_the_accelerator():
    run = run_snippet("snippets/performance/event_timing.py").result(timeout=600)
    assert run.returncode == 0, run.stderr
    match = re.fullmatch(r"a @ a on cuda: (\d+\.\d{3}) ms\n", run.stdout)
    assert match and float(match[1]) > 0, run.stdout


def test_a_fresh_profile_prints_a_table_of_the_recorded_form():
    # the numbers change from run to run; the columns and the named ranges do not
    run = run_snippet("snippets/performance/profile_step.py").result(timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    header, rows = profile_rows(run.stdout)
    assert header == PROFILE_COLUMNS
    names = [row[0] for row in rows]
    assert "forward" in names and "backward" in names, names  # the largest totals; the eight rows may leave out
    # the optimizer step, which the trace always holds
    assert all(len(row) == len(header) and row[-1].isdigit() for row in rows)
    assert re.search(r"^Self CPU time total: \d", run.stdout, re.M)
    trace = json.loads((Path(tempfile.gettempdir()) / "step-trace.json").read_text())
    assert {e.get("name") for e in trace["traceEvents"]} >= set(NAMED_RANGES)


@pytest.mark.no_cuda
def test_without_a_driver_the_profiler_says_so_on_stderr_and_profiles_the_cpu():
    run = run_snippet("snippets/performance/profile_step.py").result(timeout=600)
    assert run.returncode == 0 and "backward" in run.stdout
    assert "gpuGetDeviceCount failed with code 35" in run.stderr  # cudaErrorInsufficientDriver
