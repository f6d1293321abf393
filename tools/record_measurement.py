"""Run a snippet that measures something on this machine's CPU and record what it printed, with where, when
and on which code, for a page to show (docs/data/measurements/<snippet name>.json, schema:
docs/data/measurement.schema.json; tests/test_measurements.py checks that the page shows the record's numbers).

    .venv/bin/python tools/record_measurement.py snippets/performance/thread_speed.py

Run it on a machine that is otherwise idle: the record keeps the load average, but a busy machine's timings
say little. A timing is never asserted by a test; re-record after changing the snippet (its digest is kept).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "docs" / "hooks"))
# the MNIST benchmark's provenance functions (CPU name, cores, commit), the same for every record the site shows
sys.path.insert(0, str(REPO / "snippets" / "mnist"))

from bench import cpu_cores, cpu_name, git_commit  # noqa: E402  (snippets/mnist, added above)
from mkdocs.exceptions import PluginError  # noqa: E402

from site_pages import load_data  # noqa: E402  (the hooks' folder, added above)

SCHEMA = REPO / "docs" / "data" / "measurement.schema.json"
RECORDS = REPO / "docs" / "data" / "measurements"


def physical_cores() -> int | None:
    """Distinct (package, core) pairs in /proc/cpuinfo; None where it does not say."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    cores = set()
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(":", 1) for line in block.splitlines() if ":" in line)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        if "core id" in fields:
            cores.add((fields.get("physical id", "0"), fields["core id"]))
    return len(cores) or None


def torch_defaults() -> tuple[int, int, str, str]:
    """Thread counts a fresh process starts with, and the versions, asked of a fresh interpreter."""
    probe = ("import json, platform, torch; print(json.dumps([torch.get_num_threads(), "
             "torch.get_num_interop_threads(), torch.__version__, platform.python_version()]))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    threads, interop, torch_version, python_version = json.loads(done.stdout.strip().splitlines()[-1])
    return threads, interop, torch_version, python_version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snippet", help="the program to run, relative to the repository root")
    parser.add_argument("--out", type=Path, default=RECORDS, help="the folder of the records (default: %(default)s)")
    args = parser.parse_args(argv)
    path = (REPO / args.snippet).resolve()
    if not path.is_file() or not path.is_relative_to(REPO / "snippets") or path.suffix != ".py":
        parser.error(f"not a snippet: {args.snippet} (expected snippets/<folder>/<name>.py)")
    snippet = path.relative_to(REPO).as_posix()

    commit, dirty = git_commit(REPO)  # before the record is written into the tree
    threads, interop, torch_version, python_version = torch_defaults()
    load = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    done = subprocess.run([sys.executable, snippet], cwd=REPO, capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"record_measurement.py: {snippet} exited with status {done.returncode}: {last}", file=sys.stderr)
        return 1
    record = {
        "schema_version": 1,
        "snippet": snippet,
        "snippet_sha256": digest,
        "command": " ".join(["python tools/record_measurement.py", snippet, *(["--out", str(args.out)]
                                                                             if args.out != RECORDS else [])]),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        "commit_dirty": dirty,
        "device_name": cpu_name(),
        "physical_cores": physical_cores(),
        "logical_cpus": cpu_cores(),
        "torch_threads": threads,
        "torch_interop_threads": interop,
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "load_average": load,
        "torch_version": torch_version,
        "python_version": python_version,
        "output": done.stdout,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"{path.stem}.json"
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    try:
        load_data(out, SCHEMA)
    except PluginError as error:
        out.unlink()
        print(f"record_measurement.py: {error}", file=sys.stderr)
        return 1
    print(f"wrote {out.relative_to(REPO) if out.is_relative_to(REPO) else out} (load average {load})")
    print(done.stdout, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
