"""The compatibility run (issue 37): its records (docs/data/compat/), the tool that writes them (tools/compat_run.py,
whose plain functions are checked here without installing anything), the oldest release each page shows
(docs/hooks/compat.py), and the pages' hand-written version notes against the records. `make compat` itself is
not run here: it installs other releases."""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

import compat  # docs/hooks/compat.py
from site_pages import DOCS, LANGUAGES, REPO, load_text, pages

sys.path.insert(0, str(REPO / "tools"))
import compat_child
import compat_run

DATA = DOCS / "data"
SCHEMA = DATA / "compat.schema.json"
RECORD_FILES = sorted((DATA / "compat").glob("*.json"))
RECORDS = compat.load(DATA, REPO)
BLOCKS = compat_run.blocks()
SPELLINGS = compat.load_spellings(DATA, REPO)
SPELLING_BLOCKS = compat_run.spellings()
WORDS = load_text("compat")
PINNED = re.search(r"^torch==(\S+)", (REPO / "requirements.txt").read_text(encoding="utf-8"), re.M)[1]


def _record(release: str, *entries: tuple[str, str], scope: str = "all") -> dict:
    """A synthetic record: entries are (block id, outcome)."""
    blocks = []
    for block, outcome in entries:
        e = {"id": block, "label": block, "digest": "0" * 16, "outcome": outcome}
        if outcome == "failed":
            e |= {"error": f"AttributeError: on {release}", "warnings": []}
        elif outcome == "ran":
            e |= {"output_as_shown": True, "warnings": []}
        blocks.append(e)
    return {"release": release, "scope": scope, "blocks": blocks}


# ---- the records ---------------------------------------------------------------------------------------------

def test_the_records_are_named_after_their_release_and_hold_its_pins():
    assert RECORD_FILES, "no record in docs/data/compat/"
    for path, record in zip(RECORD_FILES, RECORDS, strict=True):
        assert path.stem == record["release"], path
        torch_pin, vision_pin = compat.RELEASES[record["release"]]
        assert record["torch"].split("+")[0] == torch_pin, path
        assert record["torchvision"].split("+")[0] == vision_pin, path


def test_the_pinned_release_and_the_oldest_have_a_record_of_every_block():
    """The pinned release (requirements.txt) and the oldest the run knows were run in full: every block's oldest
    release is placed between them."""
    full = {r["release"] for r in RECORDS if r["scope"] == "all"}
    pinned_minor = ".".join(PINNED.split(".")[:2])
    assert compat.RELEASES[pinned_minor][0] == PINNED
    assert {pinned_minor, compat.ORDER[0]} <= full


@pytest.mark.parametrize("record", RECORDS, ids=[p.stem for p in RECORD_FILES])
def test_every_current_block_has_an_entry_of_its_code_now(record):
    """A record of scope all has every block of the English pages, each with the digest of its code as it is now:
    an edited block makes its entry stale (rerun `make compat RELEASES=<release> COMPAT_ARGS=--blocks=<id>`). A
    bisection record may hold fewer blocks, but none that is gone or changed."""
    current = {b.id: b.digest for b in BLOCKS + SPELLING_BLOCKS}
    entries = {e["id"]: e["digest"] for e in record["blocks"]}
    if record["scope"] == "all":  # the older spellings: test_every_older_spelling_ran_on_the_oldest_release
        missing = sorted(set(current) - set(entries) - {b.id for b in SPELLING_BLOCKS})
        assert missing == [], f"{record['release']}: no entry for these blocks"
    assert sorted(set(entries) - set(current)) == [], f"{record['release']}: entries of blocks that are gone"
    stale = sorted(i for i in entries if current[i] != entries[i])
    assert stale == [], f"{record['release']}: stale entries (the block's code changed since)"


def test_every_block_runs_on_the_pinned_release():
    pinned = next(r for r in RECORDS if r["torch"].split("+")[0] == PINNED)
    failed = [(e["id"], e["error"]) for e in pinned["blocks"] if e["outcome"] == "failed"]
    assert failed == []


def test_a_skipped_block_is_exactly_a_cuda_only_block_with_its_marks_reason():
    marks = {b.id: b.marks for b in BLOCKS + SPELLING_BLOCKS}
    for record in RECORDS:
        for e in record["blocks"]:
            cuda_only = any(m in compat_run.NOT_RUN for m in marks[e["id"]])
            assert (e["outcome"] == "skipped") == cuda_only, (record["release"], e["id"])


@pytest.mark.parametrize(("breakage", "field"), [
    (lambda r: r["blocks"][0].update(outcome="passed"), "blocks.0.outcome"),
    (lambda r: r["blocks"][0].pop("digest"), "blocks.0.digest"),
    (lambda r: r.update(release="2.x"), "release"),
])
def test_a_malformed_record_stops_the_build_naming_file_and_field(breakage, field, tmp_path):
    record = copy.deepcopy(RECORDS[0])
    breakage(record)
    (tmp_path / "compat").mkdir()
    (tmp_path / "compat" / "2.4.json").write_text(json.dumps(record), encoding="utf-8")
    (tmp_path / "compat.schema.json").write_text(SCHEMA.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(PluginError, match=rf"2\.4\.json: field '{re.escape(field)}'"):
        compat.load(tmp_path, REPO)


def test_a_failure_needs_its_error_and_a_skip_its_names():
    record = copy.deepcopy(RECORDS[0])
    record["blocks"] = [{"id": "x.md:1", "label": "x", "digest": "0" * 16, "outcome": "failed", "warnings": []}]
    with pytest.raises(PluginError, match=r"field 'blocks\.0\.error'"):
        _validate(record)
    record["blocks"] = [{"id": "x.md:1", "label": "x", "digest": "0" * 16, "outcome": "skipped", "reason": "r"}]
    with pytest.raises(PluginError, match=r"field 'blocks\.0\.missing_names'"):
        _validate(record)


def _validate(record: dict, tmp: Path | None = None) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "2.4.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        from site_pages import load_data

        load_data(path, SCHEMA, REPO)


# ---- the oldest release ----------------------------------------------------------------------------------------

def test_the_oldest_release_is_exact_only_where_the_release_before_failed():
    records = [_record("2.4", ("a.md:1", "failed"), ("b.md:1", "ran"), ("c.md:1", "failed")),
               _record("2.6", ("a.md:1", "failed"), ("c.md:1", "ran"), scope="bisect"),
               _record("2.7", ("a.md:1", "ran"), scope="bisect"),
               _record("2.15", ("a.md:1", "ran"), ("b.md:1", "ran"), ("c.md:1", "ran"))]
    a, b, c = (compat.oldest(records, i) for i in ("a.md:1", "b.md:1", "c.md:1"))
    assert (a["release"], a["exact"], a["failed_on"]) == ("2.7", True, "2.6")
    assert a["error"] == "AttributeError: on 2.6"
    assert (b["release"], b["exact"], b["failed_on"]) == ("2.4", True, None)
    assert (c["release"], c["exact"], c["failed_on"]) == ("2.6", False, "2.4")  # 2.5 was not tried
    assert compat.oldest(records, "d.md:1") is None


def test_a_block_that_fails_on_the_newest_record_has_no_oldest_release():
    records = [_record("2.4", ("a.md:1", "ran")), _record("2.15", ("a.md:1", "failed"))]
    assert compat.oldest(records, "a.md:1") is None


def test_a_cuda_only_blocks_release_is_the_oldest_with_all_its_names():
    def skipped(release, missing):
        return {"release": release, "scope": "all", "blocks": [
            {"id": "g.md:1", "label": "g", "digest": "0" * 16, "outcome": "skipped", "reason": "needs a CUDA GPU",
             "missing_names": missing}]}

    records = [skipped("2.4", ["torch.accelerator.memory_allocated"]), skipped("2.8", ["torch.accelerator.x"]),
               skipped("2.9", []), skipped("2.15", [])]
    fact = compat.oldest(records, "g.md:1")
    assert (fact["kind"], fact["release"], fact["exact"], fact["error"]) == ("names", "2.9", True,
                                                                             "torch.accelerator.x")


def test_bisection_runs_the_failing_blocks_on_the_release_halving_their_range():
    """With no records (--fresh): every block on both ends, then the failing ones. A fake run: block x first runs on
    2.7, y on 2.5, z on every release."""
    first_ok = {"x.md:1": "2.7", "y.md:1": "2.5", "z.md:1": "2.4"}
    blocks = [compat_run.Block(i.split(":")[0], 1, "python", "", (), None, i) for i in first_ok]
    runs = []

    def run(release, chosen, scope):
        runs.append((release, sorted(b.id for b in chosen), scope))
        ok = lambda b: compat.release_key(release) >= compat.release_key(first_ok[b.id])  # noqa: E731
        return {"blocks": [{"id": b.id, "outcome": "ran" if ok(b) else "failed", "output_as_shown": None}
                           for b in chosen]}

    compat_run.bisect("2.4", "2.15", blocks, run)
    assert runs[:2] == [("2.4", sorted(first_ok), "all"), ("2.15", sorted(first_ok), "all")]
    assert all(scope == "bisect" for *_, scope in runs[2:])
    results: dict[str, list[tuple[str, bool]]] = {}
    for release, ids, _ in runs:
        for i in ids:
            results.setdefault(i, []).append(release)
    assert results["z.md:1"] == ["2.4", "2.15"]  # ran on the first: never bisected
    # the oldest release of x and y is placed exactly: run on it and on the one before
    for block, oldest in (("x.md:1", "2.7"), ("y.md:1", "2.5")):
        before = compat.ORDER[compat.ORDER.index(oldest) - 1]
        assert {oldest, before} <= set(results[block]), (block, results[block])
    assert len(runs) <= 2 + 4  # log2 of the 11 releases in between, rounded up


def _fake_run(first_ok: dict[str, str], runs: list):
    """A run in which block i runs from first_ok[i] on; it notes (release, ids, scope) in runs."""
    def run(release, chosen, scope):
        runs.append((release, sorted(b.id for b in chosen), scope))
        ok = lambda b: compat.release_key(release) >= compat.release_key(first_ok[b.id])  # noqa: E731
        return {"release": release, "blocks": [
            {"id": b.id, "digest": b.digest, "outcome": "ran" if ok(b) else "failed", "output_as_shown": None,
             "error": "e", "warnings": []} for b in chosen]}
    return run


def _blocks(*ids: str) -> list:
    return [compat_run.Block(i.split(":")[0], int(i.split(":")[1]), "python", f"# {i}\nx = 1", (), None, i)
            for i in ids]


def test_bisection_starts_from_the_records_and_runs_only_the_unplaced_blocks():
    """Records of 2.4 and 2.15 in full and of 2.9 in part: a placed block (a: runs on 2.4) and a block that fails on
    2.15 (d) are not run; b (fails on 2.7, ran on 2.9) runs on 2.8 only; c (fails on 2.4, ran on 2.9) runs on 2.8 with
    b and then on the midpoints of what is left; neither end is installed."""
    blocks = _blocks("a.md:1", "b.md:1", "c.md:1", "d.md:1")
    digest = {b.id: b.digest for b in blocks}

    def rec(release, *entries, scope="all"):
        r = _record(release, *entries, scope=scope)
        for e in r["blocks"]:
            e["digest"] = digest[e["id"]]
        return r

    records = [rec("2.4", ("a.md:1", "ran"), ("b.md:1", "failed"), ("c.md:1", "failed"), ("d.md:1", "failed")),
               rec("2.7", ("b.md:1", "failed"), scope="bisect"),
               rec("2.9", ("b.md:1", "ran"), ("c.md:1", "ran"), scope="bisect"),
               rec("2.15", ("a.md:1", "ran"), ("b.md:1", "ran"), ("c.md:1", "ran"), ("d.md:1", "failed"))]
    runs = []
    compat_run.bisect("2.4", "2.15", blocks, _fake_run({"a.md:1": "2.4", "b.md:1": "2.8", "c.md:1": "2.6",
                                                        "d.md:1": "2.15"}, runs), records)
    assert runs[0] == ("2.8", ["b.md:1", "c.md:1"], "bisect")  # 2.8 halves b's range and lies in c's
    assert runs[1:] == [("2.6", ["c.md:1"], "bisect"), ("2.5", ["c.md:1"], "bisect")]


def test_a_stale_entry_does_not_count_and_its_block_runs_on_the_ends_again():
    """An entry whose digest is not the block's now (its code changed) is dropped: the block runs on the ends."""
    blocks = _blocks("a.md:1", "b.md:1")
    records = [_record("2.4", ("a.md:1", "ran"), ("b.md:1", "ran")), _record("2.15", ("a.md:1", "ran"),
                                                                        ("b.md:1", "ran"))]
    for r in records:
        r["blocks"][0]["digest"] = blocks[0].digest  # a's entries are current, b's ("0" * 16) are stale
    runs = []
    compat_run.bisect("2.4", "2.15", blocks, _fake_run({"a.md:1": "2.4", "b.md:1": "2.4"}, runs), records)
    assert runs == [("2.4", ["b.md:1"], "bisect"), ("2.15", ["b.md:1"], "bisect")]
    # the records of releases outside first..last do not count either
    assert [(r["release"], [e["id"] for e in r["blocks"]]) for r in compat_run.current(records, blocks, "2.5", "2.15")
            ] == [("2.15", ["a.md:1"])]


def test_the_next_release_is_a_midpoint_inside_most_ranges_with_every_block_it_narrows():
    ranges = {"a": ("2.7", "2.9"), "b": ("2.4", "2.9"), "c": ("2.4", "2.6"), "d": ("2.9", "2.15"), "e": ("2.5", "2.6")}
    assert compat_run.next_release(ranges) == ("2.8", ["a", "b"])
    # a tie of ranges holding it: the newest
    assert compat_run.next_release({"c": ("2.4", "2.6"), "d": ("2.9", "2.15")}) == ("2.12", ["d"])
    assert compat_run.next_release({"e": ("2.5", "2.6")}) is None


def test_the_unplaced_blocks_are_those_whose_oldest_release_is_not_exact():
    records = [_record("2.4", ("a.md:1", "failed"), ("b.md:1", "ran"), ("c.md:1", "failed"), ("d.md:1", "ran"),
                       ("g.md:1", "failed")),
               _record("2.6", ("a.md:1", "failed"), ("c.md:1", "ran"), scope="bisect"),
               _record("2.7", ("a.md:1", "ran"), scope="bisect"),
               _record("2.15", ("a.md:1", "ran"), ("b.md:1", "ran"), ("c.md:1", "ran"), ("d.md:1", "failed"),
                       ("g.md:1", "ran"))]
    assert compat_run.unplaced(records, ["a.md:1", "b.md:1", "c.md:1", "d.md:1", "g.md:1"]) == {
        "c.md:1": ("2.4", "2.6"), "g.md:1": ("2.4", "2.15")}


def test_a_run_replaces_its_releases_entries_of_the_same_blocks():
    records = [_record("2.4", ("a.md:1", "failed"), ("b.md:1", "ran")), _record("2.6", ("a.md:1", "failed"))]
    new = compat_run.with_run(records, "2.4", _record("2.4", ("a.md:1", "ran"))["blocks"])
    assert [(r["release"], [(e["id"], e["outcome"]) for e in r["blocks"]]) for r in new] == [
        ("2.6", [("a.md:1", "failed")]), ("2.4", [("b.md:1", "ran"), ("a.md:1", "ran")])]


def test_next_probe_halves_and_stops_at_adjacent_releases():
    assert compat_run.next_probe("2.4", "2.15") == "2.9"
    assert compat_run.next_probe("2.6", "2.7") is None


def test_a_partial_run_updates_its_releases_record():
    old = _record("2.6", ("a.md:1", "failed"), ("b.md:1", "ran")) | {"torch": "2.6.0"}
    new = _record("2.6", ("a.md:1", "ran"), scope="bisect") | {"torch": "2.6.0"}
    both = compat_run.merged(old, new, ["a.md:1", "b.md:1"])
    assert [(e["id"], e["outcome"]) for e in both["blocks"]] == [("a.md:1", "ran"), ("b.md:1", "ran")]
    assert both["scope"] == "all"
    assert compat_run.merged(old | {"torch": "2.6.1"}, new, ["a.md:1", "b.md:1"]) == new


# ---- the tool's plain functions ----------------------------------------------------------------------------

def test_torch_names_follows_import_aliases_and_attribute_chains():
    code = ("import torch\nimport torch.distributed as dist\nfrom torch.nn.parallel import DistributedDataParallel"
            " as DDP\nfrom torch import nn\nx = torch.accelerator.current_accelerator()\n"
            "dist.init_process_group('gloo')\nm = DDP(nn.Linear(2, 2))\n"
            "y = torch.cuda.get_device_properties(0).total_memory\n")
    assert compat_run.torch_names(code) == [
        "torch.accelerator.current_accelerator", "torch.cuda.get_device_properties",
        "torch.distributed.init_process_group", "torch.nn.Linear", "torch.nn.parallel.DistributedDataParallel"]
    assert compat_run.torch_names("not python (") == []


def test_missing_names_are_looked_up_attribute_by_attribute_and_as_submodules():
    assert compat_child.missing_names(["torch.nn.Linear", "torch.distributed.fsdp.FullyShardedDataParallel",
                                       "torch.accelerator.no_such_function"]) == ["torch.accelerator.no_such_function"]


def test_a_warning_keeps_its_place_only_in_the_blocks_code():
    entry = compat_child.warning_entry(FutureWarning, "weights_only\nmore", "<compat block a>", 3, "<compat block a>")
    assert entry == {"category": "FutureWarning", "message": "weights_only", "where": "block:3"}
    snippet = str(REPO / "snippets" / "tensors" / "move.py")
    assert compat_child.warning_entry(UserWarning, "m", snippet, 9, "")["where"] == "snippets/tensors/move.py:9"
    # runpy names a program by the path it was given, relative to the repository root
    assert compat_child.warning_entry(UserWarning, "m", "snippets/tensors/move.py", 9, "")["where"] \
        == "snippets/tensors/move.py:9"
    assert compat_child.warning_entry(UserWarning, "m", "/usr/lib/torch/x.py", 9, "")["where"] is None
    assert compat_child.warning_entry(RuntimeWarning, "m", "x.py", 1, "") is None


def test_the_first_error_line_is_the_exceptions():
    trace = "Traceback (most recent call last):\n  File \"x\", line 1\ntorch.OutOfMemoryError: CUDA out of memory\n"
    assert compat_child.first_error_line(trace) == "torch.OutOfMemoryError: CUDA out of memory"
    assert compat_child.first_error_line("W1129 noise\nsomething broke\n") == "something broke"


def test_a_job_runs_a_whole_file_as_a_program_and_looks_up_a_cuda_blocks_names():
    kinds = {b.id: compat_run.job(b)["kind"] for b in BLOCKS}
    assert kinds["quickstart.md:4"] == "shell"
    assert {k for i, k in kinds.items() if any(m in compat_run.NOT_RUN for m in
                                               next(b.marks for b in BLOCKS if b.id == i))} == {"names"}
    assert "program" in kinds.values() and "exec" in kinds.values()


@pytest.mark.parametrize(("argv", "message"), [
    (["2.99"], "unknown release 2.99: expected one of 2.4"),
    (["--blocks", "nowhere.md:1", "2.4"], "--blocks: no block nowhere.md:1"),
    (["--python-for", "2.4=/no/python", "2.4"], "--python-for 2.4=/no/python: no such interpreter"),
    (["--bisect", "2.4"], "--bisect: give the first and the last release"),
    (["--fresh", "2.4"], "--fresh: only with --bisect"),
])
def test_bad_input_is_one_line_and_status_2(argv, message, capsys):
    assert compat_run.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"compat_run: {message}") and err.count("\n") == 1, err


def test_make_compat_runs_the_tool_and_make_test_does_not():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ncompat:", 1)[1].split("\n\n", 1)[0]
    assert "tools/compat_run.py" in recipe and "$(RELEASES)" in recipe
    assert "compat" not in makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "/.compat/" in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()


# ---- the pages -------------------------------------------------------------------------------------------------

def test_every_language_shows_the_same_blocks_in_the_same_order():
    """A Chinese block reads its English twin's results (docs/hooks/compat.py)."""
    zh = {(b.id, b.marks) for b in compat_run.blocks("zh")}
    assert zh == {(b.id, b.marks) for b in BLOCKS}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_with_code_gets_a_note_of_its_oldest_release(lang):
    with_code = {b.page for b in BLOCKS}
    for page in pages(lang):
        note = compat.render(RECORDS, WORDS[lang] | {"lang": lang}, page.name)
        assert bool(note) == (page.name in with_code), page.name
        if not note:
            continue
        facts = compat.page_facts(RECORDS, page.name)
        needs = (facts["newest"] or facts["cuda"])["release"]
        title = next(line for line in note.splitlines() if line.startswith("??? note"))
        assert f" {needs} " in title  # the folded line: the release the page needs
        for b in facts["blocks"]:
            assert f"`{b['label']}`" in note


def test_the_built_page_shows_the_records_oldest_release(built_site):
    for page in pages():
        facts = compat.page_facts(RECORDS, page.name)
        if facts is None:
            continue
        stem = page.stem
        html = (built_site / ("" if page.lang == LANGUAGES[0] else page.lang) /
                ("" if stem == "index" else stem) / "index.html").read_text(encoding="utf-8")
        words = WORDS[page.lang]
        if facts["newest"] is None:
            title = words["title_cuda"].format(release=facts["cuda"]["release"])
        else:
            title = (words["title_mixed"] if facts["blocks"] else words["title"]).format(
                release=facts["newest"]["release"])
        assert re.search(r'class="compat-note"', html), page
        assert title.replace('"', "&quot;") in html, (page, title)


# ---- the hand-written version notes, against the records ------------------------------------------------------

# (page, the words in each language, a torch name, the release the words say it arrived in): against every record of
# a block of the page that uses the name, the name is missing before that release (the block failed there, or the
# name is among a CUDA-only block's missing names) and present from it on (no failure says it is missing)
NOTES = [
    ("quickstart.md", {"en": "`torch.accelerator` (PyTorch 2.6 and later)",
                       "zh": "`torch.accelerator` 从 PyTorch 2.6 起提供"},
     "torch.accelerator", "2.6"),
    ("index.md", {"en": "`torch.accelerator` (PyTorch 2.6 and later)",
                  "zh": "`torch.accelerator`（PyTorch 2.6 起提供）"},
     "torch.accelerator", "2.6"),
    ("devices.md", {"en": "Since PyTorch 2.6, `torch.accelerator`", "zh": "从 PyTorch 2.6 起，`torch.accelerator`"},
     "torch.accelerator", "2.6"),
    ("gpu-memory.md", {"en": "Since PyTorch 2.9, `torch.accelerator` has the same memory functions",
                       "zh": "从 PyTorch 2.9 起，`torch.accelerator` 提供了同样一组显存函数"},
     "torch.accelerator.memory_allocated", "2.9"),
]


def _lacks(entry: dict, name: str) -> bool:
    """Whether a record's entry says that this release lacks name (or the module that holds it)."""
    return name in entry.get("missing_names", ()) or any(
        f"has no attribute '{part}'" in entry.get("error", "") for part in name.split(".")[1:])


@pytest.mark.parametrize(("page", "words", "name", "release"), NOTES, ids=[n[0] for n in NOTES])
def test_a_hand_written_since_note_agrees_with_the_records(page, words, name, release):
    for lang in LANGUAGES:
        text = " ".join((DOCS / lang / page).read_text(encoding="utf-8").split())
        assert words[lang] in text, (lang, page)
    using = {b.id for b in BLOCKS if b.page == page and any(
        n == name or n.startswith(name + ".") for n in compat_run.torch_names(_code(b)))}
    assert using, f"no block of {page} uses {name}"
    before, since = [], []
    for r in RECORDS:
        for e in (e for e in r["blocks"] if e["id"] in using):
            if compat.release_key(r["release"]) < compat.release_key(release):
                assert _lacks(e, name), (r["release"], e)
                before.append(r["release"])
            else:
                assert not _lacks(e, name), (r["release"], e)
                since.append((r["release"], compat.good(e, as_shown=False)))
    assert before, f"no record before {release} covers a block of {page} that uses {name}"
    assert any(ok for _, ok in since), f"no block of {page} that uses {name} ran from {release} on"
    # where the release just before was tried, the records place the name's arrival exactly
    exact = compat.ORDER[compat.release_key(release) - 1] in before and release in {r for r, _ in since}
    print(f"{page}: {name} since {release}, {'exact' if exact else 'bracketed'} by the records")


def _code(block) -> str:
    if block.syntax == "python":
        return block.code
    return "\n".join((REPO / f).read_text(encoding="utf-8") for f in block.snippet_files)


def test_the_weekly_workflow_runs_every_release_and_proposes_the_records():
    import yaml

    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "compat.yml").read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    run = workflow["jobs"]["run"]
    assert run["strategy"]["matrix"]["release"] == compat.ORDER
    assert any('make compat RELEASES="$RELEASE"' in step.get("run", "") for step in run["steps"])
    publish = " ".join(step.get("run", "") for step in workflow["jobs"]["publish"]["steps"])
    assert "git add docs/data/compat" in publish and "gh pr create" in publish


WEIGHTS_ONLY_NOTES = {  # "weights_only=True is torch.load's default since 2.6", in the words of each page
    "save-load.md": {"en": "Since PyTorch 2.6,", "zh": "从 PyTorch 2.6 起，`torch.load` 默认"},
    "bigger-models.md": {"en": "`weights_only=True` has been `torch.load`'s default since 2.6",
                         "zh": "从 2.6 起，`weights_only=True`"},
}
DEFAULT_FALSE = "You are using `torch.load` with `weights_only=False` (the current default value)"


@pytest.mark.parametrize("page", WEIGHTS_ONLY_NOTES)
def test_the_weights_only_default_since_2_6_agrees_with_the_records(page):
    """torch.load warns of its default weights_only=False up to 2.5: every recorded release before 2.6 where a block
    called torch.load without weights_only warned so, and no release from 2.6 on did."""
    for lang in LANGUAGES:
        text = " ".join((DOCS / lang / page).read_text(encoding="utf-8").split())
        assert WEIGHTS_ONLY_NOTES[page][lang] in text, (lang, page)
    warned = {r["release"] for r in RECORDS for e in r["blocks"] for w in e.get("warnings", [])
              if w["message"].startswith(DEFAULT_FALSE)}
    before = [r for r in warned if compat.release_key(r) < compat.release_key("2.6")]
    assert before, "no record before 2.6 shows torch.load's old default"
    assert sorted(r for r in warned if r not in before) == []


# ---- the older spellings (docs/data/older_spellings.yml) -------------------------------------------------------

def _spelling_record(release: str, outcome: str, name: str = "old_way") -> dict:
    e = {"id": f"spelling:{name}", "label": f"snippets/compat/{name}.py", "digest": "0" * 16, "outcome": outcome}
    e |= {"error": "ImportError: x", "warnings": []} if outcome == "failed" else {"output_as_shown": None,
                                                                                "warnings": []}
    return {"release": release, "scope": "bisect", "blocks": [e]}


# a.md:1 fails on 2.4 and 2.5 with "AttributeError: on 2.5" on 2.5, runs from 2.6; b.md:1 runs everywhere
SYNTHETIC = [_record("2.4", ("a.md:1", "failed"), ("b.md:1", "ran")),
             _record("2.5", ("a.md:1", "failed"), scope="bisect"),
             _record("2.6", ("a.md:1", "ran"), scope="bisect"),
             _record("2.15", ("a.md:1", "ran"), ("b.md:1", "ran"))]
OLD_WAY = {"error": "AttributeError: on 2.5", "before": "2.6", "snippet": "snippets/compat/old_way.py"}


def _note(records: list[dict], spellings: list[dict], lang: str = "en") -> str:
    return compat.render(records, WORDS[lang] | {"lang": lang}, "a.md", spellings)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_note_shows_a_recorded_older_spelling_under_its_block(lang):
    records = [*SYNTHETIC, _spelling_record("2.4", "ran")]
    note = _note(records, [OLD_WAY], lang)
    row = next(line for line in note.splitlines() if "AttributeError: on 2.5" in line)
    words = WORDS[lang]["spelling"].format(before="2.6", ran="2.4")
    lines = note.splitlines()
    at = lines.index(row)
    # inside the row's list item (indented past its "- "), the words, then the snippet's include fence
    assert [line.strip() for line in lines[at + 1:at + 7]] == [
        "", words, "", "```python", '--8<-- "snippets/compat/old_way.py"', "```"]
    indent = len(row) - len(row.lstrip()) + 4
    assert all(line.startswith(" " * indent) for line in lines[at + 2:at + 7] if line)


def test_the_note_shows_no_spelling_that_no_record_ran_before_its_release():
    assert "old_way" in _note([*SYNTHETIC, _spelling_record("2.4", "ran")], [OLD_WAY])
    assert "old_way" not in _note(SYNTHETIC, [OLD_WAY])  # never run
    assert "old_way" not in _note([*SYNTHETIC, _spelling_record("2.4", "failed")], [OLD_WAY])
    assert "old_way" not in _note([*SYNTHETIC, _spelling_record("2.6", "ran")], [OLD_WAY])  # not before 2.6
    # a `before` the records contradict: the block failed on 2.5, so what it needs is not older than 2.6
    for before in ("2.5", "2.7"):
        assert "old_way" not in _note([*SYNTHETIC, _spelling_record("2.4", "ran")], [OLD_WAY | {"before": before}])
    other = {"error": "AttributeError: on 2.4", "before": "2.6", "snippet": OLD_WAY["snippet"]}
    assert "old_way" not in _note([*SYNTHETIC, _spelling_record("2.4", "ran")], [other])  # not the error shown


def test_a_pattern_matches_the_start_of_the_error_line():
    records = [*SYNTHETIC, _spelling_record("2.4", "ran")]
    pattern = {"match": r"AttributeError: on 2\.", "before": "2.6", "snippet": OLD_WAY["snippet"]}
    assert "old_way" in _note(records, [pattern])
    assert "old_way" not in _note(records, [pattern | {"match": "on 2"}])


def test_a_spelling_shown_twice_in_a_note_is_included_once():
    ran = [(f"a.md:{i}", "ran") for i in (1, 4, 5)]  # most blocks ran on 2.4: a.md:2 and :3 get a row each
    records = [_record("2.4", *ran, ("a.md:2", "failed"), ("a.md:3", "failed")),
               _record("2.5", ("a.md:2", "failed"), ("a.md:3", "failed"), scope="bisect"),
               _record("2.15", *ran, ("a.md:2", "ran"), ("a.md:3", "ran")),
               _spelling_record("2.4", "ran")]
    note = _note(records, [OLD_WAY])
    assert note.count('--8<-- "snippets/compat/old_way.py"') == 1
    assert WORDS["en"]["spelling_again"].format(before="2.6") in note
    assert compat.shown_snippets(records, "a.md", [OLD_WAY]) == ["snippets/compat/old_way.py"]


@pytest.mark.parametrize(("breakage", "field"), [
    (lambda e: e.pop("snippet"), "0.snippet"),
    (lambda e: e.update(before="2.x"), "0.before"),
    (lambda e: e.update(before="2.99"), "0.before"),
    (lambda e: e.update(snippet="snippets/compat/no_such_file.py"), "0.snippet"),
    (lambda e: e.update(snippet="snippets/tensors/move.py"), "0.snippet"),
    (lambda e: e.update(colour="red"), "0.colour"),
])
def test_a_malformed_spelling_file_stops_the_build_naming_file_and_field(breakage, field, tmp_path):
    import yaml

    entries = [dict(SPELLINGS[0])]
    breakage(entries[0])
    (tmp_path / "older_spellings.yml").write_text(yaml.safe_dump(entries), encoding="utf-8")
    (tmp_path / "older_spellings.schema.json").write_text(
        (DATA / "older_spellings.schema.json").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(PluginError, match=rf"older_spellings\.yml: field '{re.escape(field)}'"):
        compat.load_spellings(tmp_path, REPO)


def test_a_spelling_has_an_error_or_a_pattern_but_not_both(tmp_path):
    import yaml

    (tmp_path / "older_spellings.schema.json").write_text(
        (DATA / "older_spellings.schema.json").read_text(encoding="utf-8"), encoding="utf-8")
    for entry in ({"before": "2.6", "snippet": OLD_WAY["snippet"]}, OLD_WAY | {"match": "x"}):
        (tmp_path / "older_spellings.yml").write_text(yaml.safe_dump([entry]), encoding="utf-8")
        with pytest.raises(PluginError, match=r"older_spellings\.yml: field '0'"):
            compat.load_spellings(tmp_path, REPO)


def test_every_older_spelling_ran_on_the_oldest_release():
    """Each spelling's snippet, as it is now, ran in the oldest full record (the release furthest from the pinned
    one; `make test` runs it on the pinned release)."""
    oldest_full = next(r for r in RECORDS if r["release"] == compat.ORDER[0])
    entries = {e["id"]: e for e in oldest_full["blocks"]}
    for block in SPELLING_BLOCKS:
        assert block.id in entries, f"{compat.ORDER[0]}: no entry for {block.id}"
        assert entries[block.id]["digest"] == block.digest, f"{block.id}: stale (its snippet changed since)"
        assert compat.good(entries[block.id]), (block.id, entries[block.id])


def test_every_older_spelling_is_shown_under_a_block_of_a_page():
    """No entry of older_spellings.yml is stale: each one's error is the one some block failed with just before
    the release the records place it on, and the note shows the spelling under that block."""
    shown = set()
    for page in pages("en"):
        facts = compat.page_facts(RECORDS, page.name, SPELLINGS)
        for f in [] if facts is None else [facts["common"], *(b["fact"] for b in facts["blocks"])]:
            if f and f["spelling"]:
                shown |= {i for i, s in enumerate(SPELLINGS) if s["snippet"] == f["spelling"]["snippet"]
                          and s["before"] == f["spelling"]["before"] and compat.matches(s, f["error"])}
    assert sorted(set(range(len(SPELLINGS))) - shown) == []


def test_every_older_spelling_is_a_snippet_the_tests_run():
    import test_snippets

    assert {s["snippet"] for s in SPELLINGS} <= set(test_snippets.SNIPPET_FILES)
    assert all(compat_run.job(b)["kind"] == "program" for b in SPELLING_BLOCKS)
    assert [b.id for b in SPELLING_BLOCKS] == [f"spelling:{Path(f).stem}" for f in
                                               dict.fromkeys(s["snippet"] for s in SPELLINGS)]


def test_a_partial_run_keeps_a_full_record_full_with_or_without_the_spellings():
    current = ["a.md:1", "a.md:2", "spelling:old_way"]
    old = _record("2.4", ("a.md:1", "ran"), ("a.md:2", "ran")) | {"torch": "2.4.1"}
    new = _spelling_record("2.4", "ran") | {"torch": "2.4.1"}
    both = compat_run.merged(old, new, current)  # the spellings alone, added to a full record
    assert both["scope"] == "all"
    assert [e["id"] for e in both["blocks"]] == current
    # some of the pages' blocks again, on a full record that has no spelling (the pinned release's)
    again = compat_run.merged(old, _record("2.4", ("a.md:2", "ran"), scope="bisect") | {"torch": "2.4.1"}, current)
    assert again["scope"] == "all"


def test_the_built_note_shows_the_older_spelling_with_its_languages_comments(built_site):
    """On a page whose note includes an older spelling: its code inside the folded note, highlighted and titled
    like the page's own blocks, with the Chinese comments on the Chinese page."""
    zh_words = compat_comments_zh()
    checked = 0
    for page in pages():
        snippets = compat.shown_snippets(RECORDS, page.name, SPELLINGS)
        if not snippets:
            continue
        stem = page.stem
        html = (built_site / ("" if page.lang == LANGUAGES[0] else page.lang) /
                ("" if stem == "index" else stem) / "index.html").read_text(encoding="utf-8")
        note = html[html.index('class="compat-note"'):]
        note = note[:note.index("</details>")]
        for snippet in snippets:
            assert f'<span class="filename">{snippet}</span>' in note, (page, snippet)
            comment = next(line.split("# ", 1)[1] for line in (REPO / snippet).read_text().splitlines()
                           if "# " in line)
            want = comment if page.lang == "en" else zh_words[comment]
            assert want in _html_text(note), (page, snippet, want)
            checked += 1
    assert checked


def compat_comments_zh() -> dict:
    import yaml

    return yaml.safe_load((DOCS / "data" / "comments" / "zh" / "compat.yml").read_text(encoding="utf-8"))


def _html_text(fragment: str) -> str:
    import html as html_lib

    return html_lib.unescape(re.sub(r"<[^>]+>", "", fragment))
