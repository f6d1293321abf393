"""Verification stamp: at the foot of every page with code, where that code last ran and what passed; and the
Verification page's list of runs (`<!-- verification-runs -->`).

The records (docs/data/verification/*.json, written by `pytest --verification-record`, see tests/verification_record.py)
are checked against docs/data/verification.schema.json. This module computes what a stamp and the Verification page
say (stamp_facts, runs_facts); the templates docs/overrides/verification/{stamp,runs,macros}.md lay it out, with the
words of docs/data/text/<lang>/verification.yml.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path

from mkdocs.exceptions import PluginError

from site_pages import BLOCK_MARKS, fences, flow, language_of, load_data, load_text, page_code_digest, templates

log = logging.getLogger("mkdocs.hooks.verification")
OUTCOMES = ("passed", "failed", "errors", "skipped")  # a record's counts (tests/verification_record.py)
# skip reason -> CUDA GPUs a machine needs to run what it skipped: while no record comes from such a machine,
# the stamp says those blocks have not yet run on one
GPUS_NEEDED = {mark.skip_reason: mark.fewest_gpus for mark in BLOCK_MARKS.values()}


def page_code(source: str) -> tuple[bool, list[str]]:
    """Whether the page has a fence the tests run, and the snippet files its fences include (in order)."""
    runnable = [f for f in fences(source) if f.runs]
    return bool(runnable), list(dict.fromkeys(i.split(":", 1)[0] for f in runnable for i in f.includes))


def shown(records: list[dict]) -> list[dict]:
    """The latest CPU record, then every GPU record, newest first."""
    cpu = [r for r in records if r["device_type"] == "cpu"]
    gpu = sorted((r for r in records if r["device_type"] != "cpu"), key=lambda r: r["date"], reverse=True)
    return ([max(cpu, key=lambda r: r["date"])] if cpu else []) + gpu


def _sum(counts: list[dict]) -> dict:
    total = sum((Counter({k: c[k] for k in OUTCOMES}) for c in counts), Counter())
    reasons = sum((Counter(c["skip_reasons"]) for c in counts), Counter())
    return {**{k: total[k] for k in OUTCOMES}, "skip_reasons": dict(reasons)}


def tally(counts: dict, most_gpus: int) -> dict:
    """A page's, snippets' or run's counts, each skip reason with `not_yet` where it needs more CUDA GPUs than
    most_gpus (the most of any run that counts): those blocks have not yet run on such a machine."""
    reasons = [{"reason": r, "n": n, "not_yet": GPUS_NEEDED.get(r, 0) > most_gpus}
               for r, n in counts["skip_reasons"].items()]
    return {**counts, "reasons": reasons}


def covers(r: dict, page: str, digest: str | None) -> bool:
    """Whether the record ran page as it is now: a CPU record always counts (CI runs every commit); a GPU record
    only while the page's code is what it ran (a record without digests predates them: changed since)."""
    return r["device_type"] == "cpu" or digest is None or r.get("page_digests", {}).get(page) == digest


def most_gpus_for(records: list[dict], page: str, digest: str | None) -> int:
    """The most CUDA GPUs of a run that covers page as it is now: a skip needing more "has not yet run"."""
    return max((r["cuda_device_count"] for r in records if covers(r, page, digest)), default=0)


def badge_facts(records: list[dict], page: str, digest: str | None) -> dict:
    """What the badge says: per shown run that ran page, {"record", "kind", "passed", "bad"} (kind "cpu", "gpu", or
    "gpu_older" for a GPU run of an earlier version of the page, whose outcomes no longer count; bad: its failed
    and erroneous blocks); "waiting", this page's blocks the CPU run skipped for want of GPUs that no run that
    counts had; and "failed", whether one of its blocks failed in a shown run."""
    rows = shown(records)
    most_gpus = most_gpus_for(records, page, digest)
    runs = []
    for r in (r for r in rows if page in r["pages"]):
        counts = r["pages"][page]
        kind = "cpu" if r["device_type"] == "cpu" else "gpu" if covers(r, page, digest) else "gpu_older"
        bad = 0 if kind == "gpu_older" else counts["failed"] + counts["errors"]
        runs.append({"record": r, "kind": kind, "passed": counts["passed"], "bad": bad})
    cpu = next((r for r in rows if r["device_type"] == "cpu" and page in r["pages"]), None)
    waiting = sum(n for reason, n in (cpu["pages"][page]["skip_reasons"].items() if cpu else ())
                  if GPUS_NEEDED.get(reason, 0) > most_gpus)
    return {"runs": runs, "waiting": waiting, "failed": any(run["bad"] for run in runs)}


def stamp_facts(records: list[dict], page: str, snippets: list[str], digest: str | None) -> dict:
    """Everything page's stamp says, computed: the badge (badge_facts) and this page's row of each shown run,
    {"record", "page": its blocks' tally or None where the run did not include the page, "covers", "snippets":
    the tally of the page's snippets run as scripts, or None where none ran}."""
    most_gpus = most_gpus_for(records, page, digest)
    rows = []
    for r in shown(records):
        ran = [r["snippets"][s] for s in snippets if s in r["snippets"]]
        rows.append({
            "record": r,
            "page": tally(r["pages"][page], most_gpus) if page in r["pages"] else None,
            "covers": covers(r, page, digest),
            "snippets": tally(_sum(ran), most_gpus) if ran else None,
        })
    return {
        "badge": badge_facts(records, page, digest),
        "rows": rows,
        "has_snippets": bool(snippets),
        "has_cpu": any(r["device_type"] == "cpu" for r in records),
        "has_gpu": any(r["device_type"] != "cpu" for r in records),
        "dirty": any(r["commit_dirty"] for r in shown(records)),
        "runs_page": VERIFICATION_PAGE,
    }


def _macros():
    return templates().get_template("verification/macros.md").module


def describe(counts: dict, t: dict, most_gpus: int) -> str:
    """counts as the stamp writes them in t's language (the template macro `counts`), for most_gpus."""
    return _macros().counts(t, tally(counts, most_gpus))


def badge(records: list[dict], t: dict, page: str, digest: str | None) -> tuple[str, bool]:
    """The badge's line in t's language (the template macro `badge`), and whether one of the page's blocks failed in
    a shown run."""
    facts = badge_facts(records, page, digest)
    return _macros().badge(t, facts), facts["failed"]


def render(records: list[dict], t: dict, page: str, snippets: list[str], digest: str | None = None) -> str:
    """The stamp for page (its path from the repository root, e.g. docs/en/tensors.md), in t's language: a one-line
    badge, folded over this page's row of every shown run; digest is site_pages.page_code_digest of the page now
    (None: not compared). Whole runs, their commands and failures are on the Verification page."""
    facts = stamp_facts(records, page, snippets, digest)
    return templates().get_template("verification/stamp.md").render(t=t, **facts).strip("\n") + "\n"


VERIFICATION_PAGE = "verification.md"
RUNS_MARKER = "<!-- verification-runs -->"


def runs_facts(records: list[dict], notes: list[dict]) -> dict:
    """The Verification page's runs, newest first: {"record", "totals": its tally, "failures": [{"test", "kind",
    "note"}]}, each failure with its note (docs/data/verification-notes.yml)."""
    note_of = {(n["record"], n["test"]): n for n in notes}
    most_gpus = max((r["cuda_device_count"] for r in records), default=0)
    return {"runs": [
        {"record": r, "totals": tally(r["totals"], most_gpus), "failures": [
            {"test": f["test"], **{k: note_of[(r["_file"], f["test"])][k] for k in ("kind", "note")}}
            for f in r["failures"]
        ]}
        for r in sorted(records, key=lambda r: r["date"], reverse=True)
    ]}


def runs(records: list[dict], t: dict, notes: list[dict]) -> str:
    """The Verification page's body in t's language (t["lang"]): every run with its machine, versions, date,
    commit, command, totals, and each failure with what it was."""
    facts = runs_facts(records, notes)
    return templates().get_template("verification/runs.md").render(t=t, lang=t["lang"], flow=flow,
                                                                    **facts).strip("\n") + "\n"


_records: list[dict] = []
_notes: list[dict] = []
_words: dict[str, dict] = {}
_repo = Path()


def on_pre_build(config) -> None:
    global _records, _notes, _words, _repo
    data = Path(config["docs_dir"]) / "data"
    _repo = Path(config["config_file_path"]).parent
    # each record with its file name: the notes on its failures name the file
    _records = [load_data(f, data / "verification.schema.json", _repo) | {"_file": f.name}
                for f in sorted((data / "verification").glob("*.json"))]
    _notes = load_data(data / "verification-notes.yml", data / "verification-notes.schema.json", _repo)
    _words = {lang: words | {"lang": lang} for lang, words in load_text("verification", _repo).items()}
    unexplained = [f"{r['_file']}: {f['test']}" for r in _records for f in r["failures"]
                   if not any(n["record"] == r["_file"] and n["test"] == f["test"] for n in _notes)]
    if unexplained:
        raise PluginError(f"docs/data/verification-notes.yml: no note for the failure {unexplained[0]}")
    # which records the stamps read: in a local build the committed ones; in the deploy, the one its test run wrote
    for r in shown(_records):
        commit = (r["commit"] or "-")[:7]
        log.info(f"verification stamp: {r['_file']} ({r['device_type']}, commit {commit}, {r['date']})")


def on_page_markdown(markdown: str, page, config, files) -> str:
    lang = language_of(page.file.src_uri)
    if page.file.src_uri.endswith(VERIFICATION_PAGE) and RUNS_MARKER in markdown:
        return markdown.replace(RUNS_MARKER, runs(_records, _words[lang], _notes))
    source = Path(page.file.abs_src_path)
    has_code, snippets = page_code(source.read_text(encoding="utf-8"))
    if not has_code:
        return markdown
    page_path = source.resolve().relative_to(_repo.resolve()).as_posix()
    stamp = render(_records, _words[lang], page_path, snippets, page_code_digest(source, _repo))
    return markdown.rstrip("\n") + "\n\n" + stamp
