"""Which PyTorch releases a page's blocks ran on: at the foot of every page with code, the oldest release each block
ran on, computed from the compatibility run's records (docs/data/compat/<release>.json, written by
tools/compat_run.py, checked against docs/data/compat.schema.json).

A record holds one release's CPU run of the English pages' blocks (the Chinese pages show the same code in the same
order with translated comments: a Chinese block reads its English twin's results). A block's oldest release is the
oldest one it ran on with every newer recorded run passing too; it is exact where the block failed on the release
just before it in RELEASES (or it is the first of RELEASES), otherwise the releases in between were not tried.
CUDA-only blocks do not run on the CPU: for them the records say which of their torch names each release lacks.
Where a block failed on an older release with an error that docs/data/older_spellings.yml knows (a name or an
argument that release lacked), the note shows under it the older spelling's snippet file, included as the pages
include theirs; only where a record says that snippet ran (entry spelling:<its name>) on a release before the one
that brought the newer spelling. This module computes the facts (page_facts); docs/overrides/compat/note.md lays them
out with the words of docs/data/text/<lang>/compat.yml.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from mkdocs.exceptions import PluginError

from site_pages import LANGUAGES, data_file_name, fences, load_data, load_text, templates

# every minor release the compatibility run knows, oldest first: the pins it installs (torch, torchvision)
RELEASES = {
    "2.4": ("2.4.1", "0.19.1"),
    "2.5": ("2.5.1", "0.20.1"),
    "2.6": ("2.6.0", "0.21.0"),
    "2.7": ("2.7.1", "0.22.1"),
    "2.8": ("2.8.0", "0.23.0"),
    "2.9": ("2.9.1", "0.24.1"),
    "2.10": ("2.10.0", "0.25.0"),
    "2.11": ("2.11.0", "0.26.0"),
    "2.12": ("2.12.1", "0.27.1"),
    "2.13": ("2.13.0", "0.28.0"),
    "2.14": ("2.14.1", "0.29.1"),
    "2.15": ("2.15.0", "0.29.2"),
}
ORDER = list(RELEASES)
SPELLING = "spelling:"  # a record's entry of an older spelling's run: spelling:<its snippet file's name>


def release_key(release: str) -> int:
    return ORDER.index(release)


def block_history(records: list[dict], block: str) -> list[tuple[str, dict]]:
    """(release, entry) for every record that has block, oldest release first."""
    rows = [(r["release"], e) for r in records for e in r["blocks"] if e["id"] == block]
    return sorted(rows, key=lambda row: release_key(row[0]))


def oldest(records: list[dict], block: str, as_shown: bool = False) -> dict | None:
    """The oldest release block ran on (good(), with as_shown: and printed the page's output) with every newer
    recorded run good too: {"release", "exact",
    "failed_on": the newest release below it where it was not (None: none recorded), "error": that failure's first
    line or the names it lacked, "differs": whether it ran there but printed another output than the page's, "kind":
    "ran" (run on the CPU) or "names" (a CUDA-only block: none of its torch names missing)}; None where the newest
    record of the block is not good, or no record has it."""
    history = block_history(records, block)
    if not history:
        return None
    kind = "names" if history[-1][1]["outcome"] == "skipped" else "ran"
    found, below = None, None
    for release, entry in reversed(history):
        if not good(entry, as_shown):
            below = (release, entry)
            break
        found = release
    if found is None:
        return None
    exact = release_key(found) == 0 or (below is not None and release_key(below[0]) == release_key(found) - 1)
    error = None
    if below is not None:
        error = below[1].get("error") or ", ".join(below[1].get("missing_names", [])) or None
    return {"release": found, "exact": exact, "kind": kind, "failed_on": below[0] if below else None,
            "error": error, "differs": below is not None and error is None, "shown": None, "spelling": None}


def good(entry: dict, as_shown: bool = True) -> bool:
    """Whether a record's entry counts as running on its release: it ran (and, as_shown, printed what the page shows,
    where the page shows an output), or, for a CUDA-only block, none of its torch names is missing."""
    if entry["outcome"] == "skipped":
        return not entry["missing_names"]
    return entry["outcome"] == "ran" and not (as_shown and entry["output_as_shown"] is False)


def matches(spelling: dict, error: str) -> bool:
    """Whether a first error line is the one an older spelling (docs/data/older_spellings.yml) is for."""
    return error == spelling["error"] if "error" in spelling else re.match(spelling["match"], error) is not None


def spelling_ran_on(records: list[dict], snippet: str) -> list[str]:
    """The releases whose record says the older spelling snippet ran (entry spelling:<its name>), oldest first."""
    return [r for r, e in block_history(records, SPELLING + Path(snippet).stem) if good(e)]


def older_spelling(records: list[dict], spellings: list[dict], fact: dict | None) -> dict | None:
    """The older spelling a block's fact (oldest()) gets: the first entry whose error is the one the block failed
    with on fact["failed_on"], where that release is before the entry's `before`, which the block did run on (the
    records do not contradict it), and the spelling ran on a release before `before`:
    {"before", "snippet", "ran_on": those releases}; else None."""
    if fact is None or fact["kind"] != "ran" or not fact["failed_on"] or not fact["error"]:
        return None
    for s in spellings:
        before = release_key(s["before"])
        if not (matches(s, fact["error"]) and release_key(fact["failed_on"]) < before <= release_key(fact["release"])):
            continue
        ran_on = [r for r in spelling_ran_on(records, s["snippet"]) if release_key(r) < before]
        if ran_on:
            return {"before": s["before"], "snippet": s["snippet"], "ran_on": ran_on, "again": False}
    return None


def tried(records: list[dict]) -> list[str]:
    """The releases with a record, oldest first."""
    return sorted({r["release"] for r in records}, key=release_key)


def page_blocks(records: list[dict], page: str) -> list[str]:
    """The ids of page's blocks (its name under docs/<lang>/: "devices.md") in the newest record that has the page."""
    for r in sorted(records, key=lambda r: release_key(r["release"]), reverse=True):
        ids = [e["id"] for e in r["blocks"] if e["id"].split(":", 1)[0] == page]
        if ids and r["scope"] == "all":
            return ids
    return []


def page_facts(records: list[dict], page: str, spellings: list[dict] = ()) -> dict | None:
    """What page's note says: "common", the oldest-release fact most of its CPU blocks share (oldest()), "blocks":
    every block's {id, label, fact} where it differs from common, "newest": the newest of the CPU blocks' facts (the
    release the whole page needs; None on a page of CUDA-only blocks), "cuda": the newest of the CUDA-only blocks'
    names facts, "full": the releases that ran every block, "partial": those that ran some of this page's
    (bisection); a fact's "shown": where the block printed another output than the page's on older releases, the
    oldest release it printed it on; a fact's "spelling": the older spelling of what failed (older_spelling()), "again"
    where the note showed the same one above. None where no record has the page or nothing of it is known."""
    ids = page_blocks(records, page)
    if not ids:
        return None
    facts = {i: oldest(records, i) for i in ids}
    for i, f in facts.items():  # where it printed another output than the page's on older releases: since when not
        shown = oldest(records, i, as_shown=True) if f is not None and f["kind"] == "ran" else None
        if f is not None and shown is not None and shown["release"] != f["release"]:
            f["shown"] = shown
    for f in facts.values():
        if f is not None:
            f["spelling"] = older_spelling(records, spellings, f)
    labels = {e["id"]: e["label"] for r in records for e in r["blocks"]}
    ran = {i: f for i, f in facts.items() if f is None or f["kind"] == "ran"}
    names = {i: f for i, f in facts.items() if f is not None and f["kind"] == "names"}

    def key(f):
        return None if f is None else (f["release"], f["exact"], f["shown"] and f["shown"]["release"])

    common_key = Counter(key(f) for f in ran.values()).most_common(1)[0][0] if ran else None
    common = next((f for f in ran.values() if key(f) == common_key), None)
    others = [{"id": i, "label": labels[i], "fact": f} for i, f in ran.items() if key(f) != common_key]
    cuda = max(names.values(), key=lambda f: release_key(f["release"])) if names else None
    known = [f for f in ran.values() if f is not None]
    newest = max(known, key=lambda f: release_key(f["release"])) if known else None
    if newest is None and cuda is None:
        return None
    full = sorted({r["release"] for r in records if r["scope"] == "all"}, key=release_key)
    partial = [r for r in tried(records) if r not in full and any(
        e["id"] in ids for rec in records if rec["release"] == r for e in rec["blocks"])]
    shown = set()
    for f in [common, *(b["fact"] for b in others)]:  # in the note's order: a spelling shown once, then referred to
        if f is not None and (spelling := f["spelling"]) is not None:
            which = (spelling["snippet"], spelling["before"])
            f["spelling"] = spelling | {"again": which in shown}
            shown.add(which)
    return {"common": common, "blocks": others, "newest": newest, "cuda": cuda, "full": full, "partial": partial}


def shown_snippets(records: list[dict], page: str, spellings: list[dict]) -> list[str]:
    """The older spellings' snippet files that page's note includes, in order."""
    facts = page_facts(records, page, spellings)
    rows = [] if facts is None else [facts["common"], *(b["fact"] for b in facts["blocks"])]
    return [f["spelling"]["snippet"] for f in rows if f and f["spelling"] and not f["spelling"]["again"]]


def render(records: list[dict], t: dict, page: str, spellings: list[dict] = ()) -> str:
    facts = page_facts(records, page, spellings)
    if facts is None:
        return ""
    return templates().get_template("compat/note.md").render(t=t, **facts).strip("\n") + "\n"


_records: list[dict] = []
_words: dict[str, dict] = {}
_spellings: list[dict] = []


def load(data: Path, repo: Path) -> list[dict]:
    return [load_data(f, data / "compat.schema.json", repo) for f in sorted((data / "compat").glob("*.json"))]


def load_spellings(data: Path, repo: Path) -> list[dict]:
    """docs/data/older_spellings.yml, checked against its schema; a `before` that no release of RELEASES is, or a
    snippet file that is not there, stops the build naming the file and the field."""
    path = data / "older_spellings.yml"
    found = load_data(path, data / "older_spellings.schema.json", repo)
    name = data_file_name(path, repo)
    for i, e in enumerate(found):
        if e["before"] not in RELEASES:
            raise PluginError(f"{name}: field '{i}.before': {e['before']!r} is not a release of {', '.join(ORDER)}")
        if not (repo / e["snippet"]).is_file():
            raise PluginError(f"{name}: field '{i}.snippet': no file {e['snippet']}")
    return found


def on_pre_build(config) -> None:
    global _records, _words, _spellings
    repo = Path(config["config_file_path"]).parent
    _records = load(Path(config["docs_dir"]) / "data", repo)
    _spellings = load_spellings(Path(config["docs_dir"]) / "data", repo)
    _words = {lang: words | {"lang": lang} for lang, words in load_text("compat", repo).items()}


def on_page_markdown(markdown: str, page, config, files) -> str:
    lang, name = page.file.src_uri.split("/", 1)
    if lang not in LANGUAGES or not any(f.runs for f in fences(markdown)):
        return markdown
    note = render(_records, _words[lang], name, _spellings)
    return markdown.rstrip("\n") + "\n\n" + note if note else markdown
