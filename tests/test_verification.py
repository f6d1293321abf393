"""Where a page's code ran: the pytest plugin's record (`--verification-record`), the GPU records and their schema,
the GPU half of each page's note (docs/hooks/provenance.py), and the Verification page."""

from __future__ import annotations

import copy
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from mkdocs.exceptions import PluginError

import provenance  # docs/hooks/provenance.py
import search_index
import verification_record
from codeblocks_plugin import cuda_device_count, skip_reason
from site_build import copy_of_repo, finished
from site_pages import (
    BLOCK_MARKS,
    DOCS,
    LANGUAGES,
    REPO,
    fences,
    flow,
    load_records,
    load_text,
    page_blocks,
    page_code_digest,
    pages,
)

SCHEMA_FILE = DOCS / "data" / "verification.schema.json"
SCHEMA = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
RECORDS = sorted((DOCS / "data" / "verification").glob("*.json"))
WORDS = {lang: w | {"lang": lang} for lang, w in load_text("provenance").items()}
H100_RUN = REPO.parent / "shared" / "gpu-runs" / "2026-11-22-h100"
H100_RECORD = DOCS / "data" / "verification" / "2026-11-22_cuda_nvidia-h100-80gb-hbm3.json"
NOTES = yaml.safe_load((DOCS / "data" / "verification-notes.yml").read_text(encoding="utf-8"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# ---- the plugin, in a real pytest run ----------------------------------------------------------------------

TINY_PAGE = """# Tiny

```bash
echo runs
```

<!-- pytest.mark.cuda -->
```bash
echo needs a gpu
```

```bash
exit 3
```
"""

OUTCOMES_TEST = """
import pytest

@pytest.mark.parametrize("snippet", ["snippets/home/three_lines.py"])
def test_snippet_named_in_the_id(snippet):
    pass

def test_skips_itself():
    pytest.skip("not here")

@pytest.fixture
def broken():
    raise RuntimeError("setup broke")

def test_errors_in_setup(broken):
    pass
"""


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory):
    """Two copies of the project with a tiny page, run at once: one without --verification-record, one with it
    and without the committed records (so that the one it writes stands alone).

    Returns the record files of the plain copy after its run, both runs, and the record the second one wrote.
    """
    targets = ["docs/en/tiny.md", "docs/zh/tiny.md", "tests/test_outcomes_here.py", "-p", "no:cacheprovider"]
    records, started = {}, {}
    for name, extra in (("plain", []), ("recorded", ["--verification-record"])):
        repo = copy_of_repo(tmp_path_factory.mktemp(name) / "repo")
        for lang in LANGUAGES:
            (repo / "docs" / lang / "tiny.md").write_text(TINY_PAGE, encoding="utf-8")
        (repo / "tests" / "test_outcomes_here.py").write_text(OUTCOMES_TEST, encoding="utf-8")
        records[name] = repo / "docs" / "data" / "verification"
        if extra:
            shutil.rmtree(records[name])
        command = [sys.executable, "-m", "pytest", *targets, *extra]
        started[name] = subprocess.Popen(command, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    plain, recorded = finished(started["plain"]), finished(started["recorded"])
    after_plain = sorted(p.name for p in records["plain"].iterdir())
    return after_plain, plain, recorded, sorted(records["recorded"].glob("*.json"))


def test_an_ordinary_run_writes_no_record(plugin_run):
    after_plain, plain, _, _ = plugin_run
    assert plain.returncode == 1, plain.stdout[-3000:]  # the failing block and the setup error
    assert after_plain == [p.name for p in RECORDS]
    assert "verification record:" not in plain.stdout


def test_the_plugin_writes_a_schema_valid_record_of_what_ran(plugin_run):
    _, _, recorded, written = plugin_run
    assert recorded.returncode == 1, recorded.stdout[-3000:]
    [file] = written
    assert f"verification record: {file}" in recorded.stdout
    record = _load(file)
    jsonschema.validate(record, SCHEMA)
    assert file == verification_record.record_path(file.parent, record)
    # what this machine has: the tiny page's CUDA block is skipped without a GPU and runs (and passes) with one
    gpus = cuda_device_count()
    assert record["device_type"] == ("cuda" if gpus else "cpu") and record["cuda_device_count"] == gpus
    ran = 1 if gpus else 0
    gpu_skips = {} if gpus else {"needs a CUDA GPU": 1}
    assert record["commit"] is None and record["commit_dirty"] is None  # the copy is no git checkout
    assert record["source"] == {"kind": "pytest", "file": None}
    assert "--verification" not in record["command"] and "docs/en/tiny.md" in record["command"]
    for lang in LANGUAGES:
        assert record["pages"][f"docs/{lang}/tiny.md"] == {
            "passed": 1 + ran,
            "failed": 1,
            "errors": 0,
            "skipped": 1 - ran,
            "skip_reasons": gpu_skips,
        }
    assert "snippets" not in record  # no per-snippet tallies: a snippet's test counts in the totals
    assert set(record["page_digests"]) == set(record["pages"])
    assert record["totals"] == {
        "passed": 3 + 2 * ran,
        "failed": 2,
        "errors": 1,
        "skipped": 3 - 2 * ran,
        "skip_reasons": {"not here": 1} | ({} if gpus else {"needs a CUDA GPU": 2}),
    }
    failures = {f["test"]: (f["outcome"], f["message"]) for f in record["failures"]}
    assert failures["tests/test_outcomes_here.py::test_errors_in_setup"] == ("errors", "RuntimeError: setup broke")
    assert failures["docs/en/tiny.md::block 3 [bash]"][0] == "failed"
    assert "exited with status 3" in failures["docs/en/tiny.md::block 3 [bash]"][1]


def test_a_teardown_error_outranks_a_pass_and_a_failure_outranks_it():
    outcomes = {
        "tests/test_x.py::test_a[snippets/a/b.py]": ("errors", "teardown broke"),
        "docs/en/x.md::block 1 [snippets/a/b.py]": ("failed", "boom"),
    }
    record = verification_record.build_record(outcomes)
    assert record["pages"]["docs/en/x.md"]["failed"] == 1 and list(record["pages"]) == ["docs/en/x.md"]
    assert record["totals"]["errors"] == 1 and record["totals"]["failed"] == 1
    assert [f["outcome"] for f in record["failures"]] == ["failed", "errors"]


# ---- the H100 record: converted once from that run's JUnit report, by a converter since deleted -------------


def test_the_h100_record_says_it_was_read_from_a_junit_report_and_the_verification_page_says_so_too():
    record = _load(H100_RECORD) | {"_file": H100_RECORD.name}
    assert record["source"] == {"kind": "junit", "file": "../shared/gpu-runs/2026-11-22-h100/junit-cuda.xml"}
    for lang in LANGUAGES:
        page = provenance.runs({"repo": REPO, "gpu": [record], "notes": NOTES}, WORDS[lang])
        assert WORDS[lang]["from_junit"].format(file=record["source"]["file"]) in page


@pytest.mark.skipif(not (H100_RUN / "README.md").is_file(), reason="the H100 run's files are not at hand")
def test_the_h100_record_agrees_with_its_runs_notes():
    committed = _load(H100_RECORD)
    readme = (H100_RUN / "README.md").read_text(encoding="utf-8")
    assert "244 passed, 39 skipped" in readme and "3 failed, 2 errors" in readme
    assert {k: committed["totals"][k] for k in ("passed", "skipped", "failed", "errors")} == {
        "passed": 244,
        "skipped": 39,
        "failed": 3,
        "errors": 2,
    }
    assert f"torch {committed['torch_version']}" in readme and f"commit {committed['commit'][:7]}" in readme
    junit = (H100_RUN / "junit-cuda.xml").read_text(encoding="utf-8")
    assert junit.count("<testcase ") == sum(committed["totals"][k] for k in ("passed", "skipped", "failed", "errors"))


# ---- the committed records and the schema ------------------------------------------------------------------


def test_committed_records_are_gpu_records_schema_valid_and_named_after_their_content():
    """The CPU's record is CI's status: no CPU record is committed."""
    assert H100_RECORD in RECORDS
    assert [f for f in RECORDS if _load(f)["device_type"] == "cpu"] == []
    for file in RECORDS:
        record = _load(file)
        jsonschema.validate(record, SCHEMA)
        assert file == verification_record.record_path(file.parent, record)


def _valid() -> dict:
    return copy.deepcopy(_load(H100_RECORD))


BROKEN = {
    "missing-torch": (lambda r: r.pop("torch_version"), "torch_version", "'torch_version' is a required property"),
    "short-commit": (lambda r: r.update(commit="b1e3b05"), "commit", "does not match"),
    "date-not-iso": (lambda r: r.update(date="22/11/2026"), "date", "does not match"),
    "negative-count": (
        lambda r: r["pages"]["docs/en/multi-gpu.md"].update(passed=-1),
        "pages.docs/en/multi-gpu.md.passed",
        "less than the minimum of 0",
    ),
    "page-not-a-page": (
        lambda r: r["pages"].update({"multi-gpu.md": r["pages"]["docs/en/multi-gpu.md"]}),
        "pages",
        "'multi-gpu.md' does not match",
    ),
    "unknown-outcome": (
        lambda r: r["failures"][0].update(outcome="crashed"),
        "failures.0.outcome",
        "'crashed' is not one of",
    ),
    "extra-field": (lambda r: r.update(gpu="yes"), "gpu", "('gpu' was unexpected)"),
}


@pytest.mark.parametrize(("breakage", "field", "message"), BROKEN.values(), ids=BROKEN.keys())
def test_the_hook_rejects_a_malformed_record_naming_file_and_field(breakage, field, message, tmp_path):
    record = _valid()
    breakage(record)
    (tmp_path / "broken.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(PluginError) as error:
        load_records(tmp_path, SCHEMA_FILE, tmp_path)
    assert str(error.value).startswith(f"broken.json: field '{field}': ")
    assert message in str(error.value) and "\n" not in str(error.value)


# ---- the words ------------------------------------------------------------------------------------------


def test_every_language_has_every_word_and_every_skip_reason():
    for lang in LANGUAGES:
        assert set(WORDS[lang]) == set(WORDS[LANGUAGES[0]]), lang
        reasons = {mark.skip_reason for mark in BLOCK_MARKS.values()}
        assert reasons <= set(WORDS[lang]["skip_reasons"]), (lang, reasons - set(WORDS[lang]["skip_reasons"]))
    assert all(reason == words for reason, words in WORDS[LANGUAGES[0]]["skip_reasons"].items())


def _skip_reasons(counts) -> set[str]:
    """Every skip reason anywhere in a record's counts (totals, pages, snippets)."""
    if isinstance(counts, dict):
        return set(counts.get("skip_reasons", {})) | {r for v in counts.values() for r in _skip_reasons(v)}
    return set()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_skip_reason_of_a_committed_record_has_words_in_every_language(lang):
    # a reason a test file states (pytest.skip) reaches the Verification page's totals as it is: without words of
    # its own it would be the English sentence on the Chinese page
    missing = sorted({r for path in RECORDS for r in _skip_reasons(_load(path))} - set(WORDS[lang]["skip_reasons"]))
    assert not missing, f"docs/data/text/{lang}/provenance.yml, skip_reasons: no words for {missing}"
    nested = {"totals": {"skip_reasons": {"x": 1}}, "pages": {"p": {"skip_reasons": {"y": 2}}}}
    assert _skip_reasons(nested) == {"x", "y"}


def test_gpu_marks_skip_where_the_gpus_are_missing():
    cuda, multi_gpu = BLOCK_MARKS["cuda"].skip_reason, BLOCK_MARKS["multi_gpu"].skip_reason
    assert [skip_reason(["cuda"], n) for n in (0, 1, 2)] == [cuda, None, None]
    assert [skip_reason(["multi_gpu", "timeout"], n) for n in (0, 1, 2)] == [multi_gpu, multi_gpu, None]
    assert [skip_reason(["no_cuda"], n) for n in (0, 1)] == [None, BLOCK_MARKS["no_cuda"].skip_reason]
    assert skip_reason(["timeout"], 0) is None


@pytest.mark.parametrize(
    ("zh_text", "complaint"), [("title: x\n", "not in every language"), ("title: [x\n", "not valid YAML")]
)
def test_a_language_file_with_other_keys_or_broken_yaml_stops_the_build_in_one_line(tmp_path, zh_text, complaint):
    for lang, text in (("en", "title: x\nci: y\n"), ("zh", zh_text)):
        (tmp_path / "docs" / "data" / "text" / lang).mkdir(parents=True)
        (tmp_path / "docs" / "data" / "text" / lang / "provenance.yml").write_text(text, encoding="utf-8")
    with pytest.raises(PluginError) as error:
        load_text("provenance", tmp_path)
    assert str(error.value).startswith("docs/data/text/zh/provenance.yml: ")
    assert complaint in str(error.value) and "\n" not in str(error.value)


# ---- the GPU half of each page's note -------------------------------------------------------------------


def _gpu_page(tmp_path: Path, code: str = "print(1)") -> Path:
    page = tmp_path / "docs" / "en" / "p.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"# P\n\n<!-- pytest.mark.cuda -->\n```python\n{code}\n```\n\n"
                    "<!-- pytest.mark.multi_gpu -->\n```python\nprint(2)\n```\n", encoding="utf-8")
    return page


def _title(note: str) -> str:
    return next(line for line in note.splitlines() if line.startswith("??? note"))


def _note(tmp_path: Path, page: Path, gpu: list[dict], lang: str = "en") -> str:
    state = {"repo": tmp_path, "torch": "2.15.0", "compat": [], "spellings": [], "gpu": gpu}
    return provenance.render(state, WORDS[lang], page, page.name)


def test_a_gpu_record_of_the_pages_code_now_counts_for_it_and_an_edit_makes_it_an_earlier_version(tmp_path):
    page = _gpu_page(tmp_path)
    counts = {"passed": 1, "failed": 0, "errors": 0, "skipped": 1, "skip_reasons": {}}
    gpu = _valid() | {"pages": {"docs/en/p.md": counts}, "page_digests": {"docs/en/p.md": page_code_digest(page)}}
    for lang in LANGUAGES:
        note = _note(tmp_path, page, [gpu], lang)
        last = WORDS[lang]["title_gpu"].format(device="NVIDIA H100 80GB HBM3", torch="2.11.0", date="2026-11-22")
        assert last in _title(note)
        assert WORDS[lang]["two_gpus"] in note  # a one-GPU run: the two-GPU block has not run
    _gpu_page(tmp_path, "print(3)")  # the page's code edited since the run
    page_blocks.cache_clear()
    note = _note(tmp_path, page, [gpu])
    assert WORDS["en"]["title_no_gpu"] in _title(note)
    assert WORDS["en"]["gpu_earlier"].format(device="NVIDIA H100 80GB HBM3", torch="2.11.0+cu130",
                                             date="2026-11-22") in note
    edited = page_code_digest(page)
    page.write_text(page.read_text(encoding="utf-8").replace("print(3)", "print(3)  # a comment"), encoding="utf-8")
    page_blocks.cache_clear()
    assert page_code_digest(page) == edited  # a comment changes nothing that runs


def test_a_page_with_gpu_blocks_and_no_gpu_record_says_not_yet_run_on_a_gpu(tmp_path):
    page = _gpu_page(tmp_path)
    for lang in LANGUAGES:
        note = _note(tmp_path, page, [], lang)
        assert WORDS[lang]["title_no_gpu"] in _title(note) and WORDS[lang]["no_gpu"] in note
        assert WORDS[lang]["cpu_none"] in note  # every block needs a GPU: CI skips them
    cpu_only = tmp_path / "docs" / "en" / "cpu.md"
    cpu_only.write_text("# C\n\n```python\nprint(1)\n```\n", encoding="utf-8")
    note = _note(tmp_path, cpu_only, [])
    assert "GPU" not in _title(note) and WORDS["en"]["title_cpu"].format(torch="2.15.0") in _title(note)


def test_a_cpu_record_is_never_shown(tmp_path):
    """A CPU run's record (a local --verification-record run writes one) is CI's status: the hook leaves it out, so
    no local build shows a stale CPU record as current."""
    data = tmp_path / "data"
    shutil.copytree(DOCS / "data", data)
    cpu = _valid() | {"device_type": "cpu", "device_name": "Some CPU", "cuda_device_count": 0, "failures": []}
    (data / "verification" / "2026-12-01_cpu_some-cpu.json").write_text(json.dumps(cpu), encoding="utf-8")
    records, _ = provenance.load_gpu(data, REPO)
    assert [r["device_type"] for r in records] == ["cuda"]


def test_every_built_page_with_code_carries_one_note_of_where_it_ran(built_site):
    """At the foot of every page with code: one note, its folded line naming the pinned torch on the CPU; a page
    with GPU blocks says what GPU ran them, or that none has. No page keeps its own "not run on a GPU" words."""
    torch = provenance.pinned_torch(REPO)
    for page in pages():
        html_text = (built_site / page.url / "index.html").read_text(encoding="utf-8")
        has_code = any(f.runs for f in fences(page.text()))
        assert html_text.count('class="provenance-note"') == int(has_code), page
        if not has_code:
            continue
        note = html.unescape(html_text[html_text.index('class="provenance-note"'):].split("</summary>", 1)[0])
        words = WORDS[page.lang]
        cpu = any(not provenance.gpu_only(b) for b in provenance.runnable(page.path))
        assert (words["title_cpu"].format(torch=torch) in note) == cpu, page
        gpu = provenance.gpu_facts(GPU_RECORDS, page.path, REPO)
        if gpu is not None and gpu["last"] is None:
            assert words["title_no_gpu"] in note, page
        elif gpu is not None:
            assert words["title_gpu"].split("{")[0] in note and gpu["last"]["device_name"] in note, page


GPU_RECORDS = provenance.load_gpu(DOCS / "data", REPO)[0]


def test_the_note_stays_out_of_the_search_index(built_site):
    docs = search_index.read_indexes(built_site)["docs"]
    assert any("CUDA_VISIBLE_DEVICES" in d["text"] for d in docs)  # the pages themselves are indexed
    for lang in LANGUAGES:
        for words in (WORDS[lang]["title_no_gpu"], WORDS[lang]["runs_link"].split("[")[0]):
            assert all(html.escape(words) not in html.escape(html.unescape(d["title"] + d["text"])) for d in docs)


def test_the_verification_page_lists_the_gpu_run_and_explains_its_failures(built_site):
    for lang in LANGUAGES:
        text = html.unescape((built_site / ("" if lang == "en" else "zh/") / "verification" / "index.html")
                             .read_text(encoding="utf-8"))
        assert "NVIDIA H100 80GB HBM3" in text and "2.11.0+cu130" in text and "b1e3b05" in text
        assert all(flow(n["note"][lang], lang).split("`")[0][:20] in text for n in NOTES)


def test_a_failure_without_a_note_stops_the_build_naming_it(tmp_path):
    data = tmp_path / "docs" / "data"
    shutil.copytree(DOCS / "data", data)
    notes = data / "verification-notes.yml"
    first, second, _ = notes.read_text(encoding="utf-8").split("\n- record:", 2)
    notes.write_text(f"{first}\n- record:{second}\n", encoding="utf-8")  # the first note only
    (tmp_path / "mkdocs.yml").write_text((REPO / "mkdocs.yml").read_text(encoding="utf-8"), encoding="utf-8")
    config = {"docs_dir": str(tmp_path / "docs"), "config_file_path": str(tmp_path / "mkdocs.yml")}
    with pytest.raises(PluginError, match=r"^docs/data/verification-notes\.yml: no note for the failure "
                       r"2026-11-22_cuda_nvidia-h100-80gb-hbm3\.json: tests/test_mnist\.py::"):
        provenance.on_pre_build(config)
    provenance.on_pre_build({"docs_dir": str(DOCS), "config_file_path": str(REPO / "mkdocs.yml")})


def test_every_failure_of_every_record_has_one_note_and_every_note_a_failure():
    failures = sorted((p.name, f["test"]) for p in RECORDS for f in _load(p)["failures"])
    assert sorted((n["record"], n["test"]) for n in NOTES) == failures


def test_a_note_folded_over_lines_reads_as_one_chinese_paragraph():
    # a folded YAML line break is a space: in Chinese none is left at punctuation or between two characters, a
    # space beside a Latin word stays
    folded = "它返回 0，\n张量却照样\n放到了 GPU 上。\n多 GPU 页面"
    assert flow(folded, "zh") == "它返回 0，张量却照样放到了 GPU 上。多 GPU 页面"
    assert flow("it returned 0,\ntensors  still\nwent", "en") == "it returned 0, tensors still went"
    records = [_load(p) | {"_file": p.name} for p in RECORDS]
    page = provenance.runs({"repo": REPO, "gpu": records, "notes": NOTES}, WORDS["zh"])
    assert "返回的是 0，张量却照样放到了 GPU 上" in page
    gaps = re.findall(r"[\u3400-\u9fff，。：；、）][ \t]+[\u3400-\u9fff，。：；、（]", page)
    assert not gaps, gaps


# ---- unattended GPU runs record themselves ------------------------------------------------------------------


def test_the_gpu_job_writes_the_record_and_the_workflow_proposes_it():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ngpu-job:", 1)[1].split("\n\n", 1)[0]
    assert re.search(r"^\t\$\(GPU_PYTHON\) tools/gpu_job\.py --out", recipe, re.M), recipe
    job = (REPO / "tools" / "gpu_job.py").read_text(encoding="utf-8")
    assert '"--verification-record", "--verification-record-dir"' in job  # its tests stage writes the record
    workflow = (REPO / ".github" / "workflows" / "gpu.yml").read_text(encoding="utf-8")
    assert "docs/data/verification/" in workflow and "for kind in benchmarks verification gpu-outputs" in workflow
    assert re.search(r"git add [^\n]*docs/data/verification", workflow)


def test_a_checkout_is_dirty_only_when_what_the_run_executes_differs_from_the_commit(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "page.md").write_text("# Page\n", encoding="utf-8")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "page")
    head, dirty = verification_record.git_state(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{40}", head) and dirty is False
    (tmp_path / "docs" / "data" / "verification").mkdir(parents=True)
    (tmp_path / "docs" / "data" / "verification" / "earlier.json").write_text("{}", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("scratch", encoding="utf-8")
    assert verification_record.git_state(tmp_path) == (head, False)  # an earlier record, a stray file
    (tmp_path / "docs" / "en" / "new.md").write_text("# New\n", encoding="utf-8")
    assert verification_record.git_state(tmp_path) == (head, True)  # a page the run executes, not committed
    (tmp_path / "docs" / "en" / "new.md").unlink()
    (tmp_path / "docs" / "en" / "page.md").write_text("# Changed\n", encoding="utf-8")
    assert verification_record.git_state(tmp_path) == (head, True)


def test_the_gpu_job_leaves_out_every_browser_test_file_by_name():
    # A GPU machine without Chromium would otherwise record ~150 browser failures against the pages; the site those
    # tests check does not depend on the GPU, so the job leaves them out and its record's command names them.
    sys.path.insert(0, str(REPO / "tools"))
    import gpu_job

    uses_browser = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "tests").rglob("test_*.py")
                          if re.search(r"^from browser import", p.read_text(encoding="utf-8"), re.M))
    assert uses_browser and set(uses_browser) <= set(gpu_job.LEAVE_OUT)
    assert '*(f"--ignore={p}" for p in LEAVE_OUT)' in (REPO / "tools" / "gpu_job.py").read_text(encoding="utf-8")


def _page_at(commit: str, page: str) -> str | None:
    shown = subprocess.run(["git", "show", f"{commit}:{page}"], cwd=REPO, capture_output=True, text=True)
    return shown.stdout if shown.returncode == 0 else None


@pytest.mark.parametrize("path", [p for p in RECORDS if _load(p)["source"]["kind"] == "pytest"], ids=lambda p: p.name)
def test_a_records_gpu_skips_are_the_gpu_blocks_its_pages_had(path):
    # A hand edit that turns skips into passes (or a plugin that loses them) shows here: on a machine with n GPUs,
    # each page's skips for want of GPUs are exactly its blocks whose marks need more, as the page was at the
    # record's commit.
    record = _load(path)
    if _page_at(record["commit"], "mkdocs.yml") is None:
        pytest.skip(f"commit {record['commit'][:7]} is not in this clone's history")
    gpus = record["cuda_device_count"]
    for page, counts in record["pages"].items():
        expected: dict[str, int] = {}
        for fence in fences(_page_at(record["commit"], page) or ""):
            if fence.runs and (reason := skip_reason(fence.marks, gpus)):
                expected[reason] = expected.get(reason, 0) + 1
        assert counts["skipped"] == sum(counts["skip_reasons"].values()), page  # every skip has its reason
        recorded = {r: n for r, n in counts["skip_reasons"].items() if r in GPU_SKIP_REASONS}
        assert recorded == expected, (page, recorded, expected)


GPU_SKIP_REASONS = {mark.skip_reason for mark in BLOCK_MARKS.values()}
