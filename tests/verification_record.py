"""pytest plugin: `pytest --verification-record` writes where this run's code ran, for the pages' stamps.

The record (docs/data/verification/<date>_<device type>_<device>.json, checked against
docs/data/verification.schema.json at build time) holds the machine, the versions, the commit, and
per page file and per snippet how many tests passed, failed, errored or were skipped, with the skip
reasons. docs/hooks/verification.py renders it on every page with code. Off by default, so that an
ordinary run leaves the tree as it was.

A run made elsewhere that left only a JUnit XML file becomes the same record with
`python tests/verification_record.py from-junit FILE --device-name ... --torch ...` (see --help).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RECORDS = REPO / "docs" / "data" / "verification"
PAGE = re.compile(r"^docs/[a-z]{2}/[^:]+\.md$")
SNIPPET_PARAM = re.compile(r"\[(snippets/[^\[\]\s]+\.py)\]")  # test ids that name the snippet they run
# Files a test run executes: an untracked one there means the run did not run the commit alone.
RUN_FROM = ("docs/", "snippets/", "tests/")
OUTCOMES = ("passed", "failed", "errors", "skipped")
MESSAGE_CHARS = 160


# ---- the machine and the checkout ------------------------------------------------------------------------


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def cpu_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def this_machine() -> dict:
    """Where the code runs: the first CUDA GPU when there is one (as the page blocks use it), else the CPU."""
    import torch

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    return {
        "device_type": "cuda" if gpus else "cpu",
        "device_name": torch.cuda.get_device_name(0) if gpus else cpu_name(),
        "cuda_device_count": gpus,
        "cpu_cores": cpu_cores(),
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
    }


def git_state(checkout: Path = REPO) -> tuple[str | None, bool | None]:
    """HEAD, and whether the run's files differ from it; (None, None) outside a git checkout.

    Dirty means a tracked file changed, or an untracked file sits where the suite runs code from;
    earlier records and other untracked files (a virtual environment) do not count.
    """

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=checkout, capture_output=True, text=True, check=True).stdout

    try:
        head = git("rev-parse", "HEAD").strip()
        status = git("status", "--porcelain", "--untracked-files=all").splitlines()
    except (OSError, subprocess.CalledProcessError):
        return None, None
    records = RECORDS.relative_to(REPO).as_posix() + "/"
    dirty = any(
        not path.startswith(records) and (code != "??" or path.startswith(RUN_FROM))
        for code, path in ((line[:2], line[3:]) for line in status)
    )
    return head, dirty


# ---- outcomes -> record ------------------------------------------------------------------------------------


def _first_line(text: str) -> str:
    line = next((s.strip() for s in str(text).splitlines() if s.strip()), "")
    line = line.replace(str(REPO) + os.sep, "")
    return line if len(line) <= MESSAGE_CHARS else line[: MESSAGE_CHARS - 1] + "…"


def _skip_reason(text: str) -> str:
    return _first_line(text).removeprefix("Skipped: ")


def _counts() -> dict:
    return {**dict.fromkeys(OUTCOMES, 0), "skip_reasons": {}}


def _add(counts: dict, outcome: str, detail: str) -> None:
    counts[outcome] += 1
    if outcome == "skipped":
        counts["skip_reasons"][detail] = counts["skip_reasons"].get(detail, 0) + 1


def build_record(outcomes: dict[str, tuple[str, str]], provenance: dict) -> dict:
    """The record of one run: outcomes maps a test's node id to (passed|failed|errors|skipped, detail).

    detail is the skip reason or the first line of the failure. A node id `docs/<lang>/<page>.md::...`
    is a page block; any other test whose id names `[snippets/....py]` counts for that snippet, which
    the build maps to the pages that include it; every test counts in the totals.
    """
    totals, pages, snippets, failures = _counts(), {}, {}, []
    for nodeid, (outcome, detail) in sorted(outcomes.items()):
        _add(totals, outcome, detail)
        path = nodeid.split("::", 1)[0]
        if PAGE.match(path):
            _add(pages.setdefault(path, _counts()), outcome, detail)
        else:  # a page block's label names its snippets too: it counts for the page only
            for snippet in SNIPPET_PARAM.findall(nodeid):
                _add(snippets.setdefault(snippet, _counts()), outcome, detail)
        if outcome in ("failed", "errors"):
            failures.append({"test": nodeid, "outcome": outcome, "message": detail})
    return {
        "schema_version": 1,
        **provenance,
        "totals": totals,
        "pages": pages,
        "snippets": snippets,
        "failures": failures,
    }


def record_path(folder: Path, record: dict) -> Path:
    device = re.sub("[^a-z0-9]+", "-", record["device_name"].lower()).strip("-")
    return folder / f"{record['date'][:10]}_{record['device_type']}_{device}.json"


def write_record(folder: Path, record: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = record_path(folder, record)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- the pytest plugin -------------------------------------------------------------------------------------


def pytest_addoption(parser):
    group = parser.getgroup("verification record")
    group.addoption("--verification-record", action="store_true",
                    help="write this run's verification record (machine, versions, commit, per-page results)")
    group.addoption("--verification-dir", default=str(RECORDS), metavar="DIR",
                    help="folder for the record (default: docs/data/verification)")


def pytest_configure(config):
    # under pytest-xdist the reports all reach the controller: only it writes
    if config.getoption("verification_record") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(config), "verification-recorder")


def report_outcome(report) -> tuple[str, str] | None:
    """What one phase's report says about its test (None: nothing to record), as pytest's summary counts it."""
    if report.when == "call":
        if report.passed:
            return "passed", ""
        if report.skipped:  # a pytest.skip() inside the test, or an xfail
            return "skipped", _skip_of(report)
        return "failed", _failure(report)
    if report.skipped:  # a skip marker or a skipping fixture, in setup
        return "skipped", _skip_of(report)
    if report.failed:  # setup or teardown failed: an error
        return "errors", _failure(report)
    return None


def _skip_of(report) -> str:
    if isinstance(report.longrepr, tuple):  # (file, line, reason)
        return _skip_reason(report.longrepr[2])
    return _skip_reason(getattr(report, "wasxfail", "") or str(report.longrepr or "xfail"))


def _failure(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    return _first_line(crash.message if crash is not None else report.longrepr)


class Recorder:
    def __init__(self, config):
        self.config = config
        self.outcomes: dict[str, tuple[str, str]] = {}
        self.commit: tuple[str | None, bool | None] = (None, None)

    def pytest_sessionstart(self, session):
        self.commit = git_state()  # before the run writes anything

    def pytest_runtest_logreport(self, report):
        result = report_outcome(report)
        if result is None:
            return
        # a teardown error after a pass is an error; after a failure the failure stands
        if report.when == "teardown" and self.outcomes.get(report.nodeid, ("",))[0] == "failed":
            return
        self.outcomes[report.nodeid] = result

    def pytest_sessionfinish(self, session, exitstatus):
        if not self.outcomes or exitstatus not in (0, 1):  # interrupted, or nothing ran: no record
            return
        args = [a for a in self.config.invocation_params.args if not a.startswith("--verification")]
        provenance = {
            "date": _now(),
            **this_machine(),
            "commit": self.commit[0],
            "commit_dirty": self.commit[1],
            "command": shlex.join(["pytest", *args]),
            "source": {"kind": "pytest", "file": None},
        }
        path = write_record(Path(self.config.getoption("verification_dir")), build_record(self.outcomes, provenance))
        self.path = path

    def pytest_terminal_summary(self, terminalreporter):
        if getattr(self, "path", None):
            terminalreporter.write_line(f"verification record: {self.path}")


# ---- a JUnit XML file from elsewhere -> the same record ----------------------------------------------------

_JUNIT_TAGS = ("testsuites", "testsuite", "testcase", "properties", "property", "skipped", "failure", "error",
               "system-out", "system-err")
# a `<` that opens none of JUnit's elements: a path someone redacted as `<venv>` inside an attribute
_STRAY_LT = re.compile(rf"<(?!/?(?:{'|'.join(_JUNIT_TAGS)})[\s/>]|\?xml)")


def _junit_nodeid(classname: str, name: str, repo: Path) -> str:
    """pytest's junit classname is the node id's path with `/` -> `.` and `.py` dropped, then any classes."""
    parts = classname.split(".")
    if parts[-1] == "md":  # a page: docs.en.multi-gpu.md
        return "/".join(parts[:-2]) + "/" + parts[-2] + ".md::" + name
    for cut in range(len(parts), 0, -1):  # the longest prefix that is a test file here
        path = "/".join(parts[:cut]) + ".py"
        if (repo / path).is_file():
            return "::".join([path, *parts[cut:], name])
    return "/".join(parts) + ".py::" + name


def outcomes_from_junit(text: str, repo: Path = REPO) -> tuple[dict[str, tuple[str, str]], str | None]:
    """Outcome per node id from pytest's JUnit XML, and the run's start (UTC, ISO) when the file has it."""
    root = ET.fromstring(_STRAY_LT.sub("&lt;", text))
    outcomes = {}
    for case in root.iter("testcase"):
        nodeid = _junit_nodeid(case.get("classname", ""), case.get("name", ""), repo)
        found = {child.tag: child for child in case}
        if "failure" in found:
            outcomes[nodeid] = ("failed", _first_line(found["failure"].get("message") or found["failure"].text or ""))
        elif "error" in found:
            outcomes[nodeid] = ("errors", _first_line(found["error"].get("message") or found["error"].text or ""))
        elif "skipped" in found:
            outcomes[nodeid] = ("skipped", _skip_reason(found["skipped"].get("message") or ""))
        else:
            outcomes[nodeid] = ("passed", "")
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    stamp = suite.get("timestamp") if suite is not None else None
    date = None
    if stamp:
        date = datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return outcomes, date


def record_from_junit(text: str, provenance: dict, repo: Path = REPO) -> dict:
    """The record of a run known only by its JUnit XML; provenance says where it ran (the file cannot)."""
    outcomes, started = outcomes_from_junit(text, repo)
    provenance = dict(provenance)
    if provenance.get("date") is None:
        if started is None:
            raise ValueError("the JUnit file has no timestamp: give the run's date")
        provenance["date"] = started
    return build_record(outcomes, provenance)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    junit = sub.add_parser("from-junit", help="turn a JUnit XML file of a run elsewhere into a verification record")
    junit.add_argument("file", type=Path)
    junit.add_argument("--device-type", choices=["cpu", "cuda", "mps"], required=True)
    junit.add_argument("--device-name", required=True)
    junit.add_argument("--cuda-device-count", type=int, required=True)
    junit.add_argument("--cpu-cores", type=int)
    junit.add_argument("--torch", required=True, help="torch.__version__ there")
    junit.add_argument("--python", required=True, help="the Python version there")
    junit.add_argument("--commit", required=True, help="the full commit hash that ran")
    junit.add_argument("--dirty", action=argparse.BooleanOptionalAction, default=None,
                       help="whether that checkout had changes not in the commit")
    junit.add_argument("--command", required=True, help="the pytest command that ran")
    junit.add_argument("--date", help="UTC, ISO 8601 (default: the file's timestamp)")
    junit.add_argument("--out", type=Path, default=RECORDS)
    args = parser.parse_args(argv)
    try:
        text = args.file.read_text(encoding="utf-8")
    except OSError as error:
        print(f"cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 1
    # the path as given from the repository root says where the file lives; an absolute one would name this machine
    shown_path = args.file.as_posix() if not args.file.is_absolute() else f"{args.file.parent.name}/{args.file.name}"
    provenance = {
        "date": args.date, "device_type": args.device_type, "device_name": args.device_name,
        "cuda_device_count": args.cuda_device_count, "cpu_cores": args.cpu_cores, "torch_version": args.torch,
        "python_version": args.python, "commit": args.commit, "commit_dirty": args.dirty, "command": args.command,
        "source": {"kind": "junit", "file": shown_path},
    }
    try:
        record = record_from_junit(text, provenance)
    except (ET.ParseError, ValueError) as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return 1
    print(write_record(args.out, record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
