"""The measurement records (docs/data/measurements/, written by tools/record_measurement.py) and the tables the
Performance pages draw from them, read for tests/test_measurements.py, test_profiling.py and test_cpu_threads.py.
A timing is never asserted: what a page shows of a measurement comes from its record, of the snippet as it is now;
a fresh run is checked for its form."""

from __future__ import annotations

import re
from pathlib import Path

from site_pages import DOCS, load_data, nav_part

MEASUREMENTS = DOCS / "data" / "measurements"
MEASUREMENT_SCHEMA = DOCS / "data" / "measurement.schema.json"
MEASUREMENT_RECORDS = sorted(MEASUREMENTS.glob("*.json"))
# a table a page draws from a record: the marker line, the header, the alignment row, the data rows
MEASURED_TABLE = re.compile(r"^<!-- measurement: (?P<snippet>\S+) -->\n(?P<table>(?:\|.*\|\n)+)", re.M)
PROFILE_COLUMNS = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
NAMED_RANGES = ["forward", "backward", "optimizer step"]
# the pages of Performance, one page until the split of 2026-11-29 (mkdocs.yml, extra.moved_sections)
PERFORMANCE_PAGES = nav_part("Performance")


def measurement(snippet: str) -> dict:
    return load_data(MEASUREMENTS / f"{Path(snippet).stem}.json", MEASUREMENT_SCHEMA)


def cells(row: str) -> list[str]:
    return [c.strip().strip("`") for c in row.strip().strip("|").split("|")]


def measured_tables(lang: str) -> dict[str, tuple[list[str], list[list[str]], str]]:
    """snippet -> (header cells, data rows, the paragraph after the table) of each measured table on the pages."""
    found = {}
    for name in PERFORMANCE_PAGES:
        text = (DOCS / lang / name).read_text(encoding="utf-8")
        for m in MEASURED_TABLE.finditer(text):
            rows = m["table"].strip().splitlines()
            after = text[m.end():].lstrip("\n").split("\n\n", 1)[0]
            found[m["snippet"]] = (cells(rows[0]), [cells(r) for r in rows[2:]], after)
    return found


def profile_rows(output: str) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a key_averages() table: columns are at least two spaces apart."""
    lines = [ln for ln in output.splitlines() if ln.strip() and not set(ln.strip()) <= {"-", " "}]
    header = re.split(r" {2,}", lines[0].strip())
    rows = [re.split(r" {2,}", ln.strip()) for ln in lines[1:] if not ln.startswith("Self CPU time total")]
    return header, rows


THREAD_ROW = re.compile(r"^ *(\d+) +(\d+\.\d+ ms) +(\d+\.\d+ ms)$")


def thread_rows(output: str) -> list[list[str]]:
    lines = output.strip().splitlines()
    assert lines[0].split() == ["threads", "1024x1024", "matmul", "training", "step"], lines[0]
    rows = [THREAD_ROW.match(ln) for ln in lines[1:]]
    assert all(rows), output
    return [list(r.groups()) for r in rows]
