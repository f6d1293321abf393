"""Verification stamp: at the foot of every page with code, where that code last ran and what passed.

Every docs/data/verification/*.json (written by `pytest --verification-record`, see
tests/verification_record.py) is checked against docs/data/verification.schema.json; one bad record
stops the build with a message naming the file and the field. Each page that has a runnable fence
gets, in its language (words in docs/data/verification_text.yml): CPU on every commit (CI), the
latest CPU record and every GPU record, each with device, PyTorch and Python versions, date, commit,
this page's blocks and its snippets passed / failed / skipped with the reasons, and the run's
failures. No page needs configuring: a page a record does not cover says so.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

import benchmarks  # loads and checks records, naming the bad file and field
from page_source import LANGUAGES, RUN_SYNTAXES, code_blocks

INCLUDE = re.compile(r'^\s*--8<--\s+"([^":]+)(?::[^"]*)?"\s*$', re.M)


# ---- records and words ------------------------------------------------------------------------------------


def load_records(folder: Path, schema_file: Path, shown_from: Path | None = None) -> list[dict]:
    """Every record in folder, checked against the schema as the benchmark records are."""
    return benchmarks.load_records(folder, schema_file, shown_from, kind="verification record")


def load_words(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def page_code(source: str) -> tuple[bool, list[str]]:
    """Whether the page has a fence the tests run, and the snippet files its fences include (in order)."""
    runnable = [b for b in code_blocks(source) if b.syntax in RUN_SYNTAXES]
    snippets = [m for b in runnable for m in INCLUDE.findall(b.code)]
    return bool(runnable), list(dict.fromkeys(snippets))


def shown(records: list[dict]) -> list[dict]:
    """The latest CPU record, then every GPU record, newest first."""
    cpu = [r for r in records if r["device_type"] == "cpu"]
    gpu = sorted((r for r in records if r["device_type"] != "cpu"), key=lambda r: r["date"], reverse=True)
    return ([max(cpu, key=lambda r: r["date"])] if cpu else []) + gpu


# ---- rendering --------------------------------------------------------------------------------------------


def _sum(counts: list[dict]) -> dict:
    total = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "skip_reasons": {}}
    for c in counts:
        for key in ("passed", "failed", "errors", "skipped"):
            total[key] += c[key]
        for reason, n in c["skip_reasons"].items():
            total["skip_reasons"][reason] = total["skip_reasons"].get(reason, 0) + n
    return total


def describe(counts: dict, words: dict, lang: str, most_gpus: int) -> str:
    """'12 passed, 3 skipped (3 × needs two or more CUDA GPUs: not yet run on such a machine)', in lang."""
    t = words[lang]
    parts = [t[key].format(n=counts[key]) for key in ("passed", "failed", "errors") if counts[key] or key == "passed"]
    if counts["skipped"]:
        reasons = []
        for reason, n in counts["skip_reasons"].items():
            known = words["skip_reasons"].get(reason, {})
            text = known.get(lang, reason)
            pattern = t["not_yet"] if known.get("gpus", 0) > most_gpus else t["reason"]
            reasons.append(pattern.format(reason=text, n=n))
        parts.append(t["with_reasons"].format(count=t["skipped"].format(n=counts["skipped"]),
                                              reasons=t["reason_sep"].join(reasons)))
    return t["list_sep"].join(parts)


def machine(r: dict, t: dict) -> str:
    if r["device_type"] == "cpu":
        if r["cpu_cores"] is None:
            return t["cpu_unknown_cores"].format(name=r["device_name"])
        return t["cpu"].format(name=r["device_name"], cores=r["cpu_cores"])
    return t["gpu"].format(name=r["device_name"], count=r["cuda_device_count"], kind=r["device_type"].upper())


def _commit(r: dict) -> str:
    if not r["commit"]:
        return "—"
    return f"`{r['commit'][:7]}`" + ("\\*" if r["commit_dirty"] else "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _code(text: str) -> str:
    """text as inline code, whatever backticks it holds."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def render(records: list[dict], words: dict, lang: str, page: str, snippets: list[str]) -> str:
    """The stamp for page (its path from the repository root, e.g. docs/en/tensors.md) as an admonition."""
    t = words[lang]
    rows = shown(records)
    most_gpus = max((r["cuda_device_count"] for r in records), default=0)
    body = [t["ci"]]
    if rows:
        table = ["| " + " | ".join(t["headers"]) + " |", "|---|---|---|---|---|"]
        for r in rows:
            blocks = describe(r["pages"][page], words, lang, most_gpus) if page in r["pages"] else t["not_in_run"]
            ran = [r["snippets"][s] for s in snippets if s in r["snippets"]]
            snippet_cell = "—" if not snippets else describe(_sum(ran), words, lang, most_gpus) if ran else \
                t["not_in_run"]
            cells = (machine(r, t), f"{r['torch_version']} · {r['python_version']}", f"{r['date'][:10]} · {_commit(r)}",
                     blocks, snippet_cell)
            table.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        body.append("\n".join(table))
    if not any(r["device_type"] == "cpu" for r in rows):
        body.append(t["no_cpu"])
    if not any(r["device_type"] != "cpu" for r in rows):
        body.append(t["no_gpu"])
    if any(r["commit_dirty"] for r in rows):
        body.append(t["dirty"])
    for r in rows:
        line = t["run"].format(machine=machine(r, t), date=r["date"][:10], command=r["command"],
                               counts=describe(r["totals"], words, lang, most_gpus))
        if r["source"]["kind"] == "junit":
            line += t["sentence_sep"] + t["from_junit"].format(file=r["source"]["file"])
        if r["failures"]:
            line += t["sentence_sep"] + t["failures"]
            line += "\n\n" + "\n".join(f"- {_code(f['test'])}: {_code(f['message'])}" if f["message"] else
                                     f"- {_code(f['test'])}" for f in r["failures"])
        body.append(line)
    indented = "\n\n".join(body).replace("\n", "\n    ").replace("\n    \n", "\n\n")
    # kept out of the search index: the same words on every page would only crowd the results
    return (f'<div class="verification-stamp" data-search-exclude markdown="1">\n\n'
            f'!!! info "{t["title"]}"\n\n    {indented}\n\n</div>\n')


# ---- MkDocs events ----------------------------------------------------------------------------------------

_records: list[dict] = []
_words: dict = {}
_repo = Path()


def on_pre_build(config) -> None:
    global _records, _words, _repo
    data = Path(config["docs_dir"]) / "data"
    _repo = Path(config["config_file_path"]).parent
    _records = load_records(data / "verification", data / "verification.schema.json", shown_from=_repo)
    _words = load_words(data / "verification_text.yml")


def on_page_markdown(markdown: str, page, config, files) -> str:
    source = Path(page.file.abs_src_path)
    lang = page.file.src_uri.split("/", 1)[0]
    if source.suffix != ".md" or lang not in LANGUAGES:
        return markdown
    has_code, snippets = page_code(source.read_text(encoding="utf-8"))
    if not has_code:
        return markdown
    stamp = render(_records, _words, lang, source.resolve().relative_to(_repo.resolve()).as_posix(), snippets)
    return markdown.rstrip("\n") + "\n\n" + stamp
