"""Verification stamp: at the foot of every page with code, where that code last ran and what passed.

The records (docs/data/verification/*.json, written by `pytest --verification-record`, see tests/verification_record.py)
are checked against docs/data/verification.schema.json; the words are in docs/data/text/<lang>/verification.yml.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from site_pages import BLOCK_MARKS, fences, language_of, load_records, load_text, page_code_digest

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


def render(records: list[dict], t: dict, page: str, snippets: list[str], digest: str | None = None) -> str:
    """The stamp for page (its path from the repository root, e.g. docs/en/tensors.md), in t's language; digest is
    site_pages.page_code_digest of the page now (None: not compared)."""
    rows = shown(records)
    # "not yet run on such a machine" is decided for this page: only runs of the page as it is now count
    most_gpus = max((r["cuda_device_count"] for r in records if covers(r, page, digest)), default=0)
    body = [t["ci"]]
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
    body += ["\n".join(table)] if rows else []
    body += [] if any(r["device_type"] == "cpu" for r in rows) else [t["no_cpu"]]
    body += [] if any(r["device_type"] != "cpu" for r in rows) else [t["no_gpu"]]
    body += [t["dirty"]] if any(r["commit_dirty"] for r in rows) else []
    for r in rows:
        line = t["run"].format(
            machine=machine(r, t), date=r["date"][:10], command=r["command"], counts=describe(r["totals"], t, most_gpus)
        )
        if r["source"]["kind"] == "junit":  # the H100 record, converted once from that run's JUnit report
            line += t["sentence_sep"] + t["from_junit"].format(file=r["source"]["file"])
        if failed := "\n".join(
            "- " + ": ".join(_code(f[k]) for k in ("test", "message") if f[k]) for f in r["failures"]
        ):
            line += f"{t['sentence_sep']}{t['failures']}\n\n{failed}"
        body.append(line)
    indented = "\n\n".join(body).replace("\n", "\n    ").replace("\n    \n", "\n\n")
    # kept out of the search index: the same words on every page would only crowd the results
    return (
        f'<div class="verification-stamp" data-search-exclude markdown="1">\n\n'
        f'!!! info "{t["title"]}"\n\n    {indented}\n\n</div>\n'
    )


_records: list[dict] = []
_words: dict[str, dict] = {}
_repo = Path()


def on_pre_build(config) -> None:
    global _records, _words, _repo
    data = Path(config["docs_dir"]) / "data"
    _repo = Path(config["config_file_path"]).parent
    _records = load_records(data / "verification", data / "verification.schema.json", _repo)
    _words = load_text("verification", _repo)


def on_page_markdown(markdown: str, page, config, files) -> str:
    source = Path(page.file.abs_src_path)
    has_code, snippets = page_code(source.read_text(encoding="utf-8"))
    if not has_code:
        return markdown
    words = _words[language_of(page.file.src_uri)]
    page_path = source.resolve().relative_to(_repo.resolve()).as_posix()
    stamp = render(_records, words, page_path, snippets, page_code_digest(source, _repo))
    return markdown.rstrip("\n") + "\n\n" + stamp
