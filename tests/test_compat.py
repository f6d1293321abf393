"""The compatibility run: its records (docs/data/compat/<release>.jsonl, one line per block), the tool that writes
them (tools/compat_run.py, whose plain functions are checked here without installing anything), the oldest release
each page's note shows (docs/hooks/provenance.py), and the pages' hand-written version notes against the records.
`make compat` itself is not run here: it installs other releases."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

import provenance  # docs/hooks/provenance.py
from site_pages import DOCS, LANGUAGES, REPO, block_digest, load_text, pages

sys.path.insert(0, str(REPO / "tools"))
import compat_child
import compat_run

DATA = DOCS / "data"
RECORDS = provenance.load(DATA, REPO)
BLOCKS = compat_run.blocks()
SPELLINGS = provenance.load_spellings(DATA, REPO)
SPELLING_BLOCKS = compat_run.spellings()
WORDS = {lang: w | {"lang": lang} for lang, w in load_text("provenance").items()}
PINNED = provenance.pinned_torch(REPO)


def _line(block: str, release: str, outcome: str, digest: str = "0" * 16, **more) -> dict:
    e = {"id": block, "digest": digest, "outcome": outcome, "release": release, "torch": release,
         "date": "2026-11-29T15:01:14Z", "commit": "0" * 40, "dirty": False}
    return e | ({"error": f"AttributeError: on {release}"} if outcome == "failed" else {}) | more


# ---- the records -----------------------------------------------------------------------------------------------

def test_the_records_are_named_after_a_release_and_each_line_holds_its_pins():
    assert RECORDS, "no record in docs/data/compat/"
    for e in RECORDS:
        assert e["torch"].split("+")[0] == provenance.RELEASES[e["release"]][0], e


def test_a_line_names_a_block_of_the_pages_or_an_older_spelling():
    current = {b.id for b in BLOCKS + SPELLING_BLOCKS}
    assert sorted({e["id"] for e in RECORDS} - current) == []


def test_every_block_runs_on_the_pinned_release_where_it_was_run():
    minor = ".".join(PINNED.split(".")[:2])
    assert provenance.RELEASES[minor][0] == PINNED
    digests = {b.id: b.digest for b in BLOCKS}
    failed = [e["id"] for e in RECORDS if e["release"] == minor and e["outcome"] == "failed"
              and digests.get(e["id"]) == e["digest"]]
    assert failed == []


def test_a_skipped_line_is_exactly_a_cuda_only_block():
    marks = {b.id: b.marks for b in BLOCKS + SPELLING_BLOCKS}
    for e in RECORDS:
        assert (e["outcome"] == "skipped") == any(m in compat_run.NOT_RUN for m in marks[e["id"]]), e


def test_the_converted_lines_keep_the_header_they_were_first_committed_under():
    """A line converted from the per-release records names the committed version it came from (from_header): that
    version holds its block with the same outcome, and its header gave the line's torch, date, commit and dirty."""
    import subprocess

    converted = [e for e in RECORDS if "from_header" in e]
    assert converted
    for source in sorted({e["from_header"] for e in converted}):
        name, commit = source.split("@")
        shown = subprocess.run(["git", "show", f"{commit}:docs/data/compat/{name}"], cwd=REPO, capture_output=True,
                               text=True)
        if shown.returncode:
            pytest.skip(f"commit {commit} is not in this clone's history")
        old = json.loads(shown.stdout)
        outcomes = {b["id"]: b["outcome"] for b in old["blocks"]}
        for e in (e for e in converted if e["from_header"] == source):
            assert e["release"] == old["release"] and outcomes[e["id"]] == e["outcome"], (source, e["id"])
            assert (e["torch"], e["date"], e["commit"], e["dirty"]) == (
                old["torch"], old["date"], old["commit"], old["commit_dirty"]), (source, e["id"])


@pytest.mark.parametrize(("breakage", "field"), [
    (lambda e: e.update(outcome="passed"), "outcome"),
    (lambda e: e.pop("digest"), "digest"),
    (lambda e: e.update(outcome="failed"), "error"),  # a failure without its error line
])
def test_a_malformed_line_stops_the_build_naming_file_line_and_field(breakage, field, tmp_path):
    (tmp_path / "compat").mkdir()
    good = {k: v for k, v in _line("x.md:1", "2.4", "ran").items() if k != "release"}
    bad = dict(good)
    breakage(bad)
    (tmp_path / "compat" / "2.4.jsonl").write_text(f"{json.dumps(good)}\n{json.dumps(bad)}\n", encoding="utf-8")
    (tmp_path / "compat.schema.json").write_text((DATA / "compat.schema.json").read_text(encoding="utf-8"))
    with pytest.raises(PluginError, match=rf"2\.4\.jsonl:2: field '{field}'"):
        provenance.load(tmp_path, REPO)


# ---- the oldest release ----------------------------------------------------------------------------------------

def test_the_oldest_release_is_the_oldest_good_one_with_every_newer_one_good():
    a = [_line("a.md:1", "2.4", "failed"), _line("a.md:1", "2.6", "failed"), _line("a.md:1", "2.7", "ran"),
         _line("a.md:1", "2.15", "ran")]
    fact = provenance.oldest(a)
    assert (fact["release"], fact["failed_on"], fact["error"]) == ("2.7", "2.6", "AttributeError: on 2.6")
    assert provenance.oldest([_line("b.md:1", "2.4", "ran"), _line("b.md:1", "2.15", "ran")])["failed_on"] is None
    assert provenance.oldest([_line("c.md:1", "2.4", "ran"), _line("c.md:1", "2.15", "failed")]) is None
    other = provenance.oldest([_line("d.md:1", "2.4", "ran", as_shown=False), _line("d.md:1", "2.15", "ran")])
    assert (other["release"], other["failed_on"], other["shown"]) == ("2.4", None, "2.15")  # another output on 2.4


def test_a_cuda_only_blocks_release_is_the_oldest_with_all_its_names():
    lines = [_line("g.md:1", r, "skipped", missing=m) for r, m in
             (("2.4", ["torch.accelerator.memory_allocated"]), ("2.8", ["torch.accelerator.x"]), ("2.9", []),
              ("2.15", []))]
    fact = provenance.oldest(lines)
    assert (fact["kind"], fact["release"], fact["error"]) == ("names", "2.9", "torch.accelerator.x")


def test_a_line_of_other_code_does_not_count():
    lines = [_line("a.md:1", "2.4", "ran", digest="1" * 16), _line("a.md:1", "2.15", "ran")]
    assert [e["release"] for e in provenance.history(lines, "a.md:1", "0" * 16)] == ["2.15"]


# ---- a run rewrites only what it ran ---------------------------------------------------------------------------

def test_a_partial_run_rewrites_only_the_lines_of_the_blocks_it_ran():
    old = [_line("a.md:1", "2.6", "failed", date="2026-11-01T00:00:00Z"),
           _line("b.md:1", "2.6", "ran", date="2026-11-01T00:00:00Z", from_header="2.6.json@000000000000")]
    new = [_line("a.md:1", "2.6", "ran", date="2026-12-01T00:00:00Z")]
    both = compat_run.merged(old, new, whole=False)
    assert both == [old[1], new[0]]  # b.md:1 keeps its own provenance, untouched
    assert compat_run.merged(old, new, whole=True) == new


def test_write_keeps_every_line_it_did_not_run(tmp_path, monkeypatch):
    monkeypatch.setattr(compat_run, "RECORDS", tmp_path)
    first, second = BLOCKS[0], BLOCKS[1]
    kept = _line(second.id, "2.6", "ran", digest=second.digest, from_header="2.6.json@000000000000")
    (tmp_path / "2.6.jsonl").write_text(json.dumps({k: v for k, v in kept.items() if k != "release"}) + "\n")
    ran = compat_run.entry(first, {"status": 0, "error": None, "warnings": [], "stdout": first.expected or ""},
                           {"torch": "2.6.0", "date": "2026-12-01T00:00:00Z", "commit": None, "dirty": None})
    compat_run.write("2.6", [ran], whole=False)
    lines = [json.loads(line) for line in (tmp_path / "2.6.jsonl").read_text().splitlines()]
    assert lines == [ran, {k: v for k, v in kept.items() if k != "release"}]


# ---- the tool's plain functions --------------------------------------------------------------------------------

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
    assert compat_child.warning_entry(UserWarning, "m", "snippets/tensors/move.py", 9, "")["where"] \
        == "snippets/tensors/move.py:9"  # runpy names a program by the path it was given
    assert compat_child.warning_entry(UserWarning, "m", "/usr/lib/torch/x.py", 9, "")["where"] is None
    assert compat_child.warning_entry(RuntimeWarning, "m", "x.py", 1, "") is None


def test_the_first_error_line_is_the_exceptions():
    trace = "Traceback (most recent call last):\n  File \"x\", line 1\ntorch.OutOfMemoryError: CUDA out of memory\n"
    assert compat_child.first_error_line(trace) == "torch.OutOfMemoryError: CUDA out of memory"
    assert compat_child.first_error_line("W1129 noise\nsomething broke\n") == "something broke"


def test_a_job_runs_a_whole_file_as_a_program_and_looks_up_a_cuda_blocks_names():
    kinds = {b.id: compat_run.job(b)["kind"] for b in BLOCKS}
    assert kinds["quickstart.md:4"] == "shell"
    assert {kinds[b.id] for b in BLOCKS if any(m in compat_run.NOT_RUN for m in b.marks)} == {"names"}
    assert "program" in kinds.values() and "exec" in kinds.values()


def test_a_blocks_digest_is_the_one_the_tests_run_it_by():
    """One identity: the run's digest of a block is site_pages.block_digest of the code the tests run."""
    block = BLOCKS[0]
    assert block.digest == block_digest(block.syntax, block.code)
    zh = next(b for b in compat_run.blocks("zh") if b.id == block.id)
    assert zh.digest == block.digest  # comments and docstrings in another language: the same code


@pytest.mark.parametrize(("argv", "message"), [
    (["2.99"], "unknown release 2.99: expected one of 2.4"),
    (["--blocks", "nowhere.md:1", "2.4"], "--blocks: no block nowhere.md:1"),
    (["--python-for", "2.4=/no/python", "2.4"], "--python-for 2.4=/no/python: no such interpreter"),
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


def test_the_weekly_workflow_runs_every_release_of_the_one_list_and_proposes_the_records():
    import yaml

    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "compat.yml").read_text(encoding="utf-8"))
    assert set(workflow.get("on", workflow.get(True))) == {"schedule", "workflow_dispatch"}
    steps = workflow["jobs"]["run"]["steps"]
    assert any(step.get("run", "").strip() == "make compat" for step in steps)  # RELEASES unset: all of them
    assert "2.4" not in json.dumps(workflow)  # no second list of releases
    publish = " ".join(step.get("run", "") for step in workflow["jobs"]["publish"]["steps"])
    assert "git add docs/data/compat" in publish and "gh pr create" in publish


# ---- the pages -------------------------------------------------------------------------------------------------

@pytest.mark.every_page
def test_every_language_shows_the_same_blocks_in_the_same_order():
    """A Chinese block reads its English twin's lines."""
    assert [(b.id, b.marks) for b in compat_run.blocks("zh")] == [(b.id, b.marks) for b in BLOCKS]


TINY = "# Tiny\n\n" + "".join(f"```python\nprint({i})\n```\n\n" for i in range(1, 6))
OLD_WAY = {"error": "AttributeError: on 2.5", "before": "2.6", "snippet": "snippets/compat/old_way.py"}


@pytest.fixture
def tiny(tmp_path):
    """A repository with one page of five blocks (docs/en/a.md) and an older spelling's snippet; line(n, ...) makes
    a record line of block n with its digest now."""
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "a.md").write_text(TINY, encoding="utf-8")
    (tmp_path / "snippets" / "compat").mkdir(parents=True)
    (tmp_path / "snippets" / "compat" / "old_way.py").write_text("print('old')\n", encoding="utf-8")

    def line(n, release, outcome, **more):
        code = "print('old')\n" if n == "spelling" else f"print({n})\n"
        ident = "spelling:old_way" if n == "spelling" else f"a.md:{n}"
        return _line(ident, release, outcome, digest=block_digest("python", code), **more)

    return tmp_path, line


def _note(repo: Path, records: list[dict], spellings=(), lang: str = "en") -> str:
    state = {"repo": repo, "torch": PINNED, "compat": records, "spellings": list(spellings), "gpu": []}
    return provenance.render(state, WORDS[lang], repo / "docs" / "en" / "a.md", "a.md")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_new_page_without_records_says_not_yet_run_on_older_releases(tiny, lang):
    repo, line = tiny
    note = _note(repo, [], lang=lang)
    title = next(x for x in note.splitlines() if x.startswith("??? note"))
    assert WORDS[lang]["title_untried"] in title and WORDS[lang]["title_cpu"].format(torch=PINNED) in title
    assert WORDS[lang]["row"].format(what=WORDS[lang]["every_block"], since=WORDS[lang]["untried"]) in note
    # one new block among recorded ones: the page keeps its oldest release and names the new block
    records = [line(n, r, "ran") for n in (1, 2, 3, 4) for r in ("2.4", "2.15")]
    note = _note(repo, records, lang=lang)
    title = next(x for x in note.splitlines() if x.startswith("??? note"))
    assert WORDS[lang]["title_oldest"].format(release="2.4") + WORDS[lang]["title_untried_some"].format(n=1) in title
    assert WORDS[lang]["row"].format(what="`print(5)`", since=WORDS[lang]["untried"]) in note


def _spelt(line, *extra):
    # a.md:1 fails on 2.4 and 2.5 ("AttributeError: on 2.5" on 2.5), runs from 2.6; the others run everywhere
    ran = [line(n, r, "ran") for n in (2, 3, 4, 5) for r in ("2.4", "2.15")]
    return [*ran, line(1, "2.4", "failed"), line(1, "2.5", "failed"), line(1, "2.6", "ran"), line(1, "2.15", "ran"),
            *extra]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_note_shows_a_recorded_older_spelling_under_its_block(tiny, lang):
    repo, line = tiny
    note = _note(repo, _spelt(line, line("spelling", "2.4", "ran")), [OLD_WAY], lang)
    lines = note.splitlines()
    at = lines.index(next(x for x in lines if "AttributeError: on 2.5" in x))
    words = WORDS[lang]["spelling"].format(before="2.6", ran="2.4")
    assert [x.strip() for x in lines[at + 1:at + 7]] == [
        "", words, "", "```python", '--8<-- "snippets/compat/old_way.py"', "```"]
    indent = len(lines[at]) - len(lines[at].lstrip()) + 4  # inside the row's list item
    assert all(x.startswith(" " * indent) for x in lines[at + 2:at + 7] if x)


def test_the_note_shows_no_spelling_that_no_record_ran_before_its_release(tiny):
    repo, line = tiny
    assert "old_way" in _note(repo, _spelt(line, line("spelling", "2.4", "ran")), [OLD_WAY])
    assert "old_way" not in _note(repo, _spelt(line), [OLD_WAY])  # never run
    assert "old_way" not in _note(repo, _spelt(line, line("spelling", "2.4", "failed")), [OLD_WAY])
    assert "old_way" not in _note(repo, _spelt(line, line("spelling", "2.6", "ran")), [OLD_WAY])  # not before 2.6
    for before in ("2.5", "2.7"):  # a `before` the records contradict
        spelling = OLD_WAY | {"before": before}
        assert "old_way" not in _note(repo, _spelt(line, line("spelling", "2.4", "ran")), [spelling])
    pattern = {"match": r"AttributeError: on 2\.", "before": "2.6", "snippet": OLD_WAY["snippet"]}
    assert "old_way" in _note(repo, _spelt(line, line("spelling", "2.4", "ran")), [pattern])
    assert "old_way" not in _note(repo, _spelt(line, line("spelling", "2.4", "ran")), [pattern | {"match": "on 2"}])


def test_a_spelling_shown_twice_in_a_note_is_included_once(tiny):
    repo, line = tiny
    ran = [line(n, r, "ran") for n in (1, 4, 5) for r in ("2.4", "2.15")]
    fails = [line(n, r, "failed") for n in (2, 3) for r in ("2.4", "2.5")]
    records = [*ran, *fails, line(2, "2.15", "ran"), line(3, "2.15", "ran"), line("spelling", "2.4", "ran")]
    note = _note(repo, records, [OLD_WAY])
    assert note.count('--8<-- "snippets/compat/old_way.py"') == 1
    assert WORDS["en"]["spelling_again"].format(before="2.6") in note
    assert provenance.shown_snippets(records, "a.md", [OLD_WAY], repo) == ["snippets/compat/old_way.py"]


@pytest.mark.parametrize(("breakage", "field"), [
    (lambda e: e.pop("snippet"), "0.snippet"),
    (lambda e: e.update(before="2.x"), "0.before"),
    (lambda e: e.update(before="2.99"), "0.before"),
    (lambda e: e.update(snippet="snippets/compat/no_such_file.py"), "0.snippet"),
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
        provenance.load_spellings(tmp_path, REPO)


def test_every_older_spelling_is_shown_under_a_block_of_a_page():
    """No entry of older_spellings.yml is stale: the note shows each under a block that failed with its error."""
    shown = set()
    for page in pages("en"):
        if not provenance.runnable(page.path):
            continue
        facts = provenance.compat_facts(RECORDS, page.name, SPELLINGS)
        for f in [facts["common"], *(b["fact"] for b in facts["blocks"])]:
            if isinstance(f, dict) and f["spelling"]:
                shown |= {i for i, s in enumerate(SPELLINGS) if s["snippet"] == f["spelling"]["snippet"]
                          and s["before"] == f["spelling"]["before"] and provenance.matches(s, f["error"])}
    assert sorted(set(range(len(SPELLINGS))) - shown) == []


def test_every_older_spelling_is_a_snippet_the_tests_run():
    import test_snippets

    assert {s["snippet"] for s in SPELLINGS} <= set(test_snippets.SNIPPET_FILES)
    assert all(compat_run.job(b)["kind"] == "program" for b in SPELLING_BLOCKS)


def test_the_built_page_shows_its_oldest_release_and_the_older_spelling(built_site):
    """Every page with code carries the note with its oldest release; an older spelling sits inside the folded
    note, titled like the page's own blocks, with the Chinese comments on the Chinese page."""
    import yaml

    zh_words = yaml.safe_load((DATA / "comments" / "zh" / "compat.yml").read_text(encoding="utf-8"))
    checked = 0
    for page in pages():
        if not provenance.runnable(page.path):
            continue
        html = (built_site / page.url / "index.html").read_text(encoding="utf-8")
        facts = provenance.compat_facts(RECORDS, page.name, SPELLINGS)
        note = html[html.index('class="provenance-note"'):]
        note = note[:note.index("</details>")]
        if facts["newest"]:
            oldest = WORDS[page.lang]["title_oldest_mixed" if facts["mixed"] else "title_oldest"]
            assert oldest.format(release=facts["newest"]) in note, page
        for snippet in provenance.shown_snippets(RECORDS, page.name, SPELLINGS):
            assert f'<span class="filename">{snippet}</span>' in note, (page, snippet)
            comment = next(x.split("# ", 1)[1] for x in (REPO / snippet).read_text().splitlines() if "# " in x)
            assert (comment if page.lang == "en" else zh_words[comment]) in _html_text(note), (page, snippet)
            checked += 1
    assert checked


def _html_text(fragment: str) -> str:
    import html as html_lib

    return html_lib.unescape(re.sub(r"<[^>]+>", "", fragment))


# ---- the hand-written version notes, against the records -------------------------------------------------------

# (page, the words in each language, a torch name, the release the words say it arrived in): every line of a block
# of the page that uses the name lacks it before that release and has it from it on
NOTES = [
    ("quickstart.md", {"en": "`torch.accelerator` (PyTorch 2.6 and later)",
                       "zh": "`torch.accelerator` 从 PyTorch 2.6 起提供"}, "torch.accelerator", "2.6"),
    ("index.md", {"en": "`torch.accelerator` (PyTorch 2.6 and later)",
                  "zh": "`torch.accelerator`（PyTorch 2.6 起提供）"}, "torch.accelerator", "2.6"),
    ("devices.md", {"en": "Since PyTorch 2.6, `torch.accelerator`", "zh": "从 PyTorch 2.6 起，`torch.accelerator`"},
     "torch.accelerator", "2.6"),
    ("gpu-memory.md", {"en": "Since PyTorch 2.9, `torch.accelerator` has the same memory functions",
                       "zh": "从 PyTorch 2.9 起，`torch.accelerator` 提供了同样一组显存函数"},
     "torch.accelerator.memory_allocated", "2.9"),
]


def _lacks(entry: dict, name: str) -> bool:
    return name in entry.get("missing", ()) or any(
        f"has no attribute '{part}'" in entry.get("error", "") for part in name.split(".")[1:])


def _code(block) -> str:
    if block.syntax == "python":
        return block.code
    return "\n".join((REPO / f).read_text(encoding="utf-8") for f in block.snippet_files)


@pytest.mark.parametrize(("page", "words", "name", "release"), NOTES, ids=[n[0] for n in NOTES])
def test_a_hand_written_since_note_agrees_with_the_records(page, words, name, release):
    for lang in LANGUAGES:
        assert words[lang] in " ".join((DOCS / lang / page).read_text(encoding="utf-8").split()), (lang, page)
    using = {b.id: b.digest for b in BLOCKS if b.page == page and any(
        n == name or n.startswith(name + ".") for n in compat_run.torch_names(_code(b)))}
    assert using, f"no block of {page} uses {name}"
    lines = [e for e in RECORDS if using.get(e["id"]) == e["digest"]]
    before = [e for e in lines if provenance.release_key(e["release"]) < provenance.release_key(release)]
    since = [e for e in lines if e not in before]
    assert before and all(_lacks(e, name) for e in before), f"a record before {release} has {name}"
    assert not any(_lacks(e, name) for e in since)
    assert any(e["outcome"] in ("ran", "skipped") for e in since), f"no block that uses {name} ran from {release}"


WEIGHTS_ONLY_NOTES = {  # "weights_only=True is torch.load's default since 2.6", in the words of each page
    "save-load.md": {"en": "Since PyTorch 2.6,", "zh": "从 PyTorch 2.6 起，`torch.load` 默认"},
    "bigger-models.md": {"en": "`weights_only=True` has been `torch.load`'s default since 2.6",
                         "zh": "从 2.6 起，`weights_only=True`"},
}
DEFAULT_FALSE = "You are using `torch.load` with `weights_only=False` (the current default value)"


@pytest.mark.parametrize("page", WEIGHTS_ONLY_NOTES)
def test_the_weights_only_default_since_2_6_agrees_with_the_records(page):
    """torch.load warns of its default weights_only=False up to 2.5: a release before 2.6 warned so, none after."""
    for lang in LANGUAGES:
        assert WEIGHTS_ONLY_NOTES[page][lang] in " ".join((DOCS / lang / page).read_text(encoding="utf-8").split())
    warned = {e["release"] for e in RECORDS for w in e.get("warnings", []) if w["message"].startswith(DEFAULT_FALSE)}
    before = [r for r in warned if provenance.release_key(r) < provenance.release_key("2.6")]
    assert before, "no record before 2.6 shows torch.load's old default"
    assert sorted(r for r in warned if r not in before) == []
