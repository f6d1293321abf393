"""pytest plugin: `pytest --verification-record` writes where this run's code ran, for the pages' notes.

The record (docs/data/verification/<date>_<device type>_<device>.json, schema: docs/data/verification.schema.json)
holds the machine, versions, commit, per page the tests passed, failed, errored or skipped (with the reasons) and
each page's code digest. docs/hooks/provenance.py shows a GPU run's record on the pages whose code it ran; a CPU
run's is CI's status and shown nowhere. Off by default: an ordinary run leaves the tree alone.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from site_pages import REPO, page_code_digest

RECORDS = REPO / "docs" / "data" / "verification"
PAGE = re.compile(r"^docs/[a-z]{2}/[^:]+\.md$")
OUTCOMES = ("passed", "failed", "errors", "skipped")
# Files a test run executes: an untracked one there means the run did not run the commit alone.
RUN_FROM = ("docs/", "snippets/", "tests/")
# pytest's report categories -> the record's outcomes; a test in two (a teardown error after a pass) takes the
# later one here, so an error outranks a pass and a failure an error
CATEGORIES = dict(
    passed="passed", xpassed="passed", skipped="skipped", xfailed="skipped", error="errors", failed="failed"
)
MESSAGE_CHARS = 160


def git_state(checkout: Path = REPO) -> tuple[str | None, bool | None]:
    """HEAD, and whether a tracked file changed or an untracked one sits where the suite runs code from (earlier
    records aside); (None, None) outside a git checkout."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=checkout, capture_output=True, text=True, check=True).stdout

    not_records = f":!{RECORDS.relative_to(REPO).as_posix()}"
    try:
        head = git("rev-parse", "HEAD").strip()
        changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", not_records)
        new = git("ls-files", "--others", "--exclude-standard", "--", *RUN_FROM, not_records)
    except (OSError, subprocess.CalledProcessError):
        return None, None
    return head, bool(changed.strip() or new.strip())


def _first_line(text: str) -> str:
    line = next((s.strip() for s in str(text).splitlines() if s.strip()), "").replace(str(REPO) + os.sep, "")
    return line if len(line) <= MESSAGE_CHARS else line[: MESSAGE_CHARS - 1] + "…"


def detail(report, outcome: str) -> str:
    """The skip reason, or the first line of the failure; nothing for a pass."""
    if outcome == "skipped":
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else getattr(report, "wasxfail", "")
        return _first_line(reason or "xfail").removeprefix("Skipped: ")
    crash = getattr(report.longrepr, "reprcrash", None)
    return "" if outcome == "passed" else _first_line(crash.message if crash is not None else report.longrepr)


def build_record(outcomes: dict[str, tuple[str, str]]) -> dict:
    """Counts and failures from node id -> (passed|failed|errors|skipped, detail): `docs/<lang>/<page>.md::...` is
    a page block, counted for its page; every test counts in the totals."""

    def counts() -> dict:
        return {**dict.fromkeys(OUTCOMES, 0), "skip_reasons": {}}

    record = {"totals": counts(), "pages": {}, "failures": []}
    for nodeid, (outcome, why) in sorted(outcomes.items()):
        path = nodeid.split("::", 1)[0]
        groups = [record["pages"].setdefault(path, counts())] if PAGE.match(path) else []
        for group in (record["totals"], *groups):
            group[outcome] += 1
            if outcome == "skipped":
                group["skip_reasons"][why] = group["skip_reasons"].get(why, 0) + 1
        if outcome in ("failed", "errors"):
            record["failures"].append({"test": nodeid, "outcome": outcome, "message": why})
    return record


def record_path(folder: Path, record: dict) -> Path:
    device = re.sub("[^a-z0-9]+", "-", record["device_name"].lower()).strip("-")
    return folder / f"{record['date'][:10]}_{record['device_type']}_{device}.json"


# options that say where files go, not what ran: left out of the record's command (each with its value)
WHERE_OPTIONS = ("--verification-record-dir", "--gpu-job-outputs", "--junitxml")


def command_args(args) -> list[str]:
    """The run's arguments without --verification-record and the options that name where files go."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in WHERE_OPTIONS:
            skip = True
        elif arg != "--verification-record" and not arg.startswith(tuple(f"{o}=" for o in WHERE_OPTIONS)):
            kept.append(arg)
    return kept


def pytest_addoption(parser):
    parser.addoption("--verification-record", action="store_true", help="write this run's verification record")
    parser.addoption("--verification-record-dir", type=Path, default=RECORDS, metavar="DIR",
                     help="where --verification-record writes (default docs/data/verification; the GPU job: its own)")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    # an interrupted run (or one that could not collect) writes nothing; under pytest-xdist only the controller
    # writes (a worker's summary would hold its own share of the tests, and could be the last written)
    if not config.getoption("verification_record") or exitstatus not in (0, 1) or hasattr(config, "workerinput"):
        return
    outcomes = {
        report.nodeid: (outcome, detail(report, outcome))
        for category, outcome in CATEGORIES.items()
        for report in terminalreporter.stats.get(category, [])
        if report.when != "collect"
    }
    if not outcomes:  # nothing ran: no record
        return
    import torch

    sys.path.insert(0, str(REPO / "snippets" / "mnist"))  # bench.py's folder, as when it runs
    from bench import cpu_cores, device_name  # the benchmark records name machines the same way

    # where the code ran: the first CUDA GPU when there is one (as the page blocks use it), else the CPU
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    commit, dirty = git_state()
    args = command_args(config.invocation_params.args)
    record = {
        "schema_version": 1,
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device_type": "cuda" if gpus else "cpu",
        "device_name": device_name(torch.device("cuda" if gpus else "cpu")),
        "cuda_device_count": gpus,
        "cpu_cores": cpu_cores(),
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "commit": commit,
        "commit_dirty": dirty,
        "command": shlex.join(["pytest", *args]),
        "source": {"kind": "pytest", "file": None},
        **build_record(outcomes),
    }
    # what each page's code was when it ran: a page edited since says "an earlier version ran" (site_pages)
    record["page_digests"] = {page: page_code_digest(REPO / page) for page in record["pages"]
                              if (REPO / page).is_file()}
    path = record_path(config.getoption("verification_record_dir"), record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    terminalreporter.write_line(f"verification record: {path}")
