"""Verification stamp: at the foot of every page with code, where that code last ran and what passed.

The records (docs/data/verification/*.json, written by `pytest --verification-record`, see tests/verification_record.py)
are checked against docs/data/verification.schema.json; the words are in docs/data/text/<lang>/verification.yml.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from mkdocs.exceptions import PluginError

from site_pages import BLOCK_MARKS, fences, language_of, load_data, load_text, page_code_digest

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


def describe(counts: dict, t: dict, most_gpus: int) -> str:
    """'12 passed, 3 skipped (3 × needs two or more CUDA GPUs: not yet run on such a machine)', in t's language."""
    parts = [t[k].format(n=counts[k]) for k in OUTCOMES[:3] if counts[k] or k == "passed"]
    reasons = t["reason_sep"].join(
        t["not_yet" if GPUS_NEEDED.get(r, 0) > most_gpus else "reason"].format(reason=t["skip_reasons"].get(r, r), n=n)
        for r, n in counts["skip_reasons"].items()
    )
    if counts["skipped"]:
        parts.append(t["with_reasons"].format(count=t["skipped"].format(n=counts["skipped"]), reasons=reasons))
    return t["list_sep"].join(parts)


def machine(r: dict, t: dict) -> str:
    if r["device_type"] != "cpu":
        return t["gpu"].format(name=r["device_name"], count=r["cuda_device_count"], kind=r["device_type"].upper())
    return t["cpu" if r["cpu_cores"] else "cpu_unknown_cores"].format(name=r["device_name"], cores=r["cpu_cores"])


def _code(text: str) -> str:
    """text as inline code, whatever backticks it holds."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def covers(r: dict, page: str, digest: str | None) -> bool:
    """Whether the record ran page as it is now: a CPU record always counts (CI runs every commit); a GPU record
    only while the page's code is what it ran (a record without digests predates them: changed since)."""
    return r["device_type"] == "cpu" or digest is None or r.get("page_digests", {}).get(page) == digest


def most_gpus_for(records: list[dict], page: str, digest: str | None) -> int:
    """The most CUDA GPUs of a run that covers page as it is now: a skip needing more "has not yet run"."""
    return max((r["cuda_device_count"] for r in records if covers(r, page, digest)), default=0)


def _table(records: list[dict], t: dict, page: str, snippets: list[str], digest: str | None) -> str:
    """This page's row for each shown record: machine, versions, date and commit, its blocks, its snippets."""
    rows = shown(records)
    most_gpus = most_gpus_for(records, page, digest)
    table = ["| " + " | ".join(t["headers"]) + " |", "|---" * len(t["headers"]) + "|"]
    for r in rows:
        ran = [r["snippets"][s] for s in snippets if s in r["snippets"]]
        cells = (
            machine(r, t),
            f"{r['torch_version']} · {r['python_version']}",
            f"{r['date'][:10]} · " + (f"`{r['commit'][:7]}`" + "\\*" * bool(r["commit_dirty"]) if r["commit"] else "—"),
            (describe(r["pages"][page], t, most_gpus) if covers(r, page, digest)
             else t["changed_since"].format(counts=describe(r["pages"][page], t, most_gpus)))
            if page in r["pages"] else t["not_in_run"],
            "—" if not snippets else describe(_sum(ran), t, most_gpus) if ran else t["not_in_run"],
        )
        table.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(table) if rows else ""


def badge(records: list[dict], t: dict, page: str, digest: str | None) -> tuple[str, bool]:
    """The one line a reader sees: what ran this page's blocks, where, and how many still wait for a GPU; and
    whether one of them failed in a shown run."""
    rows = shown(records)
    most_gpus = most_gpus_for(records, page, digest)
    parts, failed = [], False
    for r in rows:
        if page not in r["pages"]:
            continue
        counts = r["pages"][page]
        where = {"gpu": r["device_name"], "torch": r["torch_version"].split("+")[0], "date": r["date"][:10],
                 "commit": (r["commit"] or "—")[:7]}
        if r["device_type"] == "cpu":
            parts.append(t["badge_cpu"].format(n=counts["passed"], **where))
        elif covers(r, page, digest):
            parts.append(t["badge_gpu"].format(n=counts["passed"], **where))
        else:
            parts.append(t["badge_gpu_older"].format(**where))
            continue
        if bad := counts["failed"] + counts["errors"]:
            failed = True
            parts.append(t["badge_failed"].format(n=bad, machine=machine(r, t)))
    cpu = next((r for r in rows if r["device_type"] == "cpu" and page in r["pages"]), None)
    waiting = sum(n for reason, n in (cpu["pages"][page]["skip_reasons"].items() if cpu else ())
                  if GPUS_NEEDED.get(reason, 0) > most_gpus)
    if waiting:
        parts.append(t["badge_await"].format(n=waiting))
    return t["badge_sep"].join(parts) or t["badge_none"], failed


def render(records: list[dict], t: dict, page: str, snippets: list[str], digest: str | None = None) -> str:
    """The stamp for page (its path from the repository root, e.g. docs/en/tensors.md), in t's language: a one-line
    badge, folded over this page's row of every shown run; digest is site_pages.page_code_digest of the page now
    (None: not compared). Whole runs, their commands and failures are on the Verification page."""
    line, failed = badge(records, t, page, digest)
    body = [f"**{t['title']}** {t['ci']}"]
    body += [table] if (table := _table(records, t, page, snippets, digest)) else []
    body += [] if any(r["device_type"] == "cpu" for r in records) else [t["no_cpu"]]
    body += [] if any(r["device_type"] != "cpu" for r in records) else [t["no_gpu"]]
    body += [t["dirty"]] if any(r["commit_dirty"] for r in shown(records)) else []
    body.append(t["runs_link"].format(url=VERIFICATION_PAGE))
    indented = "\n\n".join(body).replace("\n", "\n    ").replace("\n    \n", "\n\n")
    kind = "failure" if failed else "success"
    title = line.replace('"', "&quot;")
    # kept out of the search index: the same words on every page would only crowd the results
    return (
        f'<div class="verification-stamp" data-search-exclude markdown="1">\n\n'
        f'??? {kind} "{title}"\n\n    {indented}\n\n</div>\n'
    )


VERIFICATION_PAGE = "verification.md"
RUNS_MARKER = "<!-- verification-runs -->"


def runs(records: list[dict], t: dict, notes: list[dict]) -> str:
    """The Verification page's body: every run, newest first, with its machine, versions, date, commit, command,
    totals and each failure with what it was (docs/data/verification-notes.yml)."""
    note_of = {(n["record"], n["test"]): n for n in notes}
    most_gpus = max((r["cuda_device_count"] for r in records), default=0)
    out = []
    for r in sorted(records, key=lambda r: r["date"], reverse=True):
        out.append(f"## {machine(r, t)}, {r['date'][:10]}")
        commit = f"`{r['commit'][:7]}`" + "\\*" * bool(r["commit_dirty"]) if r["commit"] else "—"
        out.append(t["run_facts"].format(torch=r["torch_version"], python=r["python_version"], commit=commit,
                                         command=_code(r["command"]), counts=describe(r["totals"], t, most_gpus)))
        if r["source"]["kind"] == "junit":
            out.append(t["from_junit"].format(file=r["source"]["file"]))
        if r["failures"]:
            out.append(t["failures"])
            for f in r["failures"]:
                note = note_of[(r["_file"], f["test"])]
                out.append(f"- {_code(f['test'])}: {t['failure_kinds'][note['kind']]}. {note['note'][t['lang']]}")
    return "\n\n".join(out) + "\n"


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
