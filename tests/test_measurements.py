"""The measurement records (docs/data/measurements/, written by tools/record_measurement.py): each is of its
snippet as it is now, and the Performance pages show their numbers, and only those."""

from __future__ import annotations

import hashlib

import pytest

from measurements import (
    MEASUREMENT_RECORDS,
    MEASUREMENT_SCHEMA,
    PROFILE_COLUMNS,
    measured_tables,
    measurement,
    profile_rows,
    thread_rows,
)
from site_pages import LANGUAGES, REPO, load_data


def test_the_profile_table_parser_reads_columns_and_rows():
    table = (
        "-------  ----------\n"
        "   Name    Self CPU\n"
        "-------  ----------\n"
        "optimizer step     1.0ms\n"
        "Self CPU time total: 1.0ms\n"
    )
    assert profile_rows(table) == (["Name", "Self CPU"], [["optimizer step", "1.0ms"]])


@pytest.mark.parametrize("path", MEASUREMENT_RECORDS, ids=lambda p: p.name)
def test_a_measurement_record_is_of_the_snippet_as_it_is_now(path):
    record = load_data(path, MEASUREMENT_SCHEMA)
    snippet = REPO / record["snippet"]
    assert path.stem == snippet.stem, "a record is named after its snippet"
    assert record["snippet_sha256"] == hashlib.sha256(snippet.read_bytes()).hexdigest(), (
        f"{record['snippet']} changed since it was measured: run tools/record_measurement.py again")
    assert record["command"].startswith(f"python tools/record_measurement.py {record['snippet']}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_shows_every_measurement_and_only_recorded_numbers(lang):
    tables = measured_tables(lang)
    assert sorted(tables) == sorted(load_data(p, MEASUREMENT_SCHEMA)["snippet"] for p in MEASUREMENT_RECORDS)
    for snippet, (header, rows, after) in tables.items():
        record = measurement(snippet)
        if snippet.endswith("profile_step.py"):
            recorded_header, recorded = profile_rows(record["output"])
            assert recorded_header == PROFILE_COLUMNS
            columns = [recorded_header.index(name) for name in header]  # an excerpt: some of the columns
            assert len(rows) >= 4
            assert rows == [[row[i] for i in columns] for row in recorded[: len(rows)]], f"{lang}: {snippet}"
        else:
            assert rows == thread_rows(record["output"]), f"{lang}: {snippet}"
        # where and when: the sentence under the table
        for fact in (record["date"][:10], record["device_name"], f"{record['physical_cores']}",
                     record["torch_version"].split("+")[0], f"{record['load_average']}"):
            assert fact in after, f"{lang}: the line under the {snippet} table lacks {fact!r}"
