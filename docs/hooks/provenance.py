"""Where a page's code ran and on which torch: one folded note at the foot of every page with code, and the
Verification page's list of GPU runs (`<!-- verification-runs -->`).

Three sources, each fact computed, none typed on a page:
- the CPU: CI runs every block of every page on each commit (`make test`) with the pinned torch (requirements.txt);
- a GPU: the GPU records (docs/data/verification/*.json, written by `pytest --verification-record` on a GPU machine),
  each counting for a page only while the page's code is what it ran (site_pages.page_code_digest);
- older releases: the compatibility records (docs/data/compat/<release>.jsonl, one line per block, written by
  tools/compat_run.py), each line counting while its digest is the block's now (site_pages.block_digest). A block
  with no such line has "not yet run on older releases". A Chinese block reads its English twin's lines.
Where a block failed on an older release with an error docs/data/older_spellings.yml knows, the note shows the
older spelling's snippet, where a record says it ran before the release that brought the newer one.
Templates: docs/overrides/provenance/{note,runs}.md; words: docs/data/text/<lang>/provenance.yml.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from mkdocs.exceptions import PluginError

from site_pages import (
    DOCS,
    LANGUAGES,
    RUN_SYNTAXES,
    block_digest,
    data_file_name,
    fences,
    flow,
    invalid_field,
    language_of,
    load_data,
    load_text,
    page_blocks,
    page_code_digest,
    templates,
)

# every minor release the compatibility run knows, oldest first, with the pins it installs (torch, torchvision);
# .github/workflows/compat.yml reads this list (tools/compat_run.py --list)
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
SPELLING = "spelling:"  # a record's line of an older spelling's run: spelling:<its snippet file's name>
NOT_RUN_ON_CPU = ("cuda", "multi_gpu")  # marks of blocks only a GPU runs (site_pages.BLOCK_MARKS)
VERIFICATION_PAGE = "verification.md"
RUNS_MARKER = "<!-- verification-runs -->"


def release_key(release: str) -> int:
    return ORDER.index(release)


# ---- compatibility ---------------------------------------------------------------------------------------------

def load(data: Path, repo: Path) -> list[dict]:
    """Every line of docs/data/compat/<release>.jsonl, each checked against compat.schema.json, with its release;
    a bad line stops the build naming file, line and field."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(json.loads((data / "compat.schema.json").read_text(encoding="utf-8")))
    found = []
    for path in sorted((data / "compat").glob("*.jsonl")):
        name = data_file_name(path, repo)
        if path.stem not in RELEASES:
            raise PluginError(f"{name}: not a release of {', '.join(ORDER)}")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                entry = json.loads(line)
            except ValueError as error:
                raise PluginError(f"{name}:{n}: not valid JSON ({error})") from None
            if (error := jsonschema.exceptions.best_match(validator.iter_errors(entry))) is not None:
                raise PluginError(f"{name}:{n}: field '{invalid_field(error)}': {error.message}")
            found.append(entry | {"release": path.stem})
    return found


def history(records: list[dict], block: str, digest: str) -> list[dict]:
    """The lines of block whose digest is the block's now, oldest release first."""
    return sorted((e for e in records if e["id"] == block and e["digest"] == digest),
                  key=lambda e: release_key(e["release"]))


def good(entry: dict, as_shown: bool = False) -> bool:
    """Whether a line counts as running on its release: it ran (as_shown: and printed what the page shows, where
    the page shows an output), or, for a CUDA-only block, none of its torch names is missing."""
    if entry["outcome"] == "skipped":
        return not entry["missing"]
    return entry["outcome"] == "ran" and not (as_shown and entry.get("as_shown") is False)


def oldest(lines: list[dict], as_shown: bool = False) -> dict | None:
    """The oldest release a block ran on (good()) with every newer recorded release good too: {"release", "kind":
    "ran" or "names" (a CUDA-only block), "failed_on": the newest release below it where it was not good (or None),
    "error": that failure's first line or the names it lacked, "shown": the oldest release from which on it printed
    the page's output, where that is a later one}; None where the newest line is not good or there is none."""
    found = below = None
    for e in reversed(lines):
        if not good(e, as_shown):
            below = e
            break
        found = e
    if found is None:
        return None
    error = below and (below.get("error") or ", ".join(below.get("missing", [])) or None)
    fact = {"release": found["release"], "kind": "names" if found["outcome"] == "skipped" else "ran",
            "failed_on": below and below["release"], "error": error, "spelling": None, "shown": None}
    if not as_shown and (shown := oldest(lines, as_shown=True)) and shown["release"] != fact["release"]:
        fact["shown"] = shown["release"]
    return fact


def matches(spelling: dict, error: str) -> bool:
    """Whether a first error line is the one an older spelling (docs/data/older_spellings.yml) is for."""
    return error == spelling["error"] if "error" in spelling else re.match(spelling["match"], error) is not None


def older_spelling(records: list[dict], spellings: list[dict], fact: dict | None, repo: Path) -> dict | None:
    """The older spelling a block's fact gets: the first whose error the block failed with on a release before its
    `before` (which the block ran on), and which a record says ran on a release before `before`."""
    if fact is None or fact["kind"] != "ran" or not fact["error"]:
        return None
    for s in spellings:
        before = release_key(s["before"])
        if not (matches(s, fact["error"]) and release_key(fact["failed_on"]) < before <= release_key(fact["release"])):
            continue
        digest = block_digest("python", (repo / s["snippet"]).read_text(encoding="utf-8"), repo)
        ran_on = [e["release"] for e in history(records, SPELLING + Path(s["snippet"]).stem, digest)
                  if good(e) and release_key(e["release"]) < before]
        if ran_on:
            return {"before": s["before"], "snippet": s["snippet"], "ran_on": ran_on, "again": False}
    return None


def load_spellings(data: Path, repo: Path) -> list[dict]:
    """docs/data/older_spellings.yml, checked against its schema; a `before` that is no release, or a snippet file
    that is not there, stops the build naming the file and the field."""
    path = data / "older_spellings.yml"
    found = load_data(path, data / "older_spellings.schema.json", repo)
    for i, e in enumerate(found):
        if e["before"] not in RELEASES:
            raise PluginError(f"{data_file_name(path, repo)}: field '{i}.before': {e['before']!r} is not a release "
                              f"of {', '.join(ORDER)}")
        if not (repo / e["snippet"]).is_file():
            raise PluginError(f"{data_file_name(path, repo)}: field '{i}.snippet': no file {e['snippet']}")
    return found


def runnable(page: Path) -> list:
    return [b for b in page_blocks(page) if b.expanded.syntax in RUN_SYNTAXES]


def gpu_only(block) -> bool:
    """Whether only a GPU runs the block (its `<!-- pytest.mark.cuda -->`-style marks)."""
    return any(m.split(".")[-1].split("(")[0].strip() in NOT_RUN_ON_CPU for m in block.marks)


def label(block) -> str:
    return ", ".join(block.includes) or block.raw.code.strip().splitlines()[0].rstrip(" \\")[:80]


def compat_facts(records: list[dict], page: str, spellings: list[dict] = (), repo: Path = DOCS.parent) -> dict:
    """What the note says of older releases for page (its name under docs/<lang>/): "common", the fact most of its
    CPU blocks share (oldest(); None: no line of its code now, "not yet run on older releases"; "never": it failed
    on the newest release recorded), "blocks": each other block's {label, fact}, "newest": the newest release of
    the CPU blocks' facts (what the whole page needs), "mixed": whether some ran on older ones, "untried": how many
    CPU blocks have no line of their code now, "cuda": the newest release of the CUDA-only blocks' names facts."""
    blocks = runnable(repo / "docs" / LANGUAGES[0] / page)
    cpu, names = [], []
    for b in blocks:
        lines = history(records, f"{page}:{b.index}", b.digest)
        fact = oldest(lines) or ("never" if lines else None)  # None: not yet run on older releases
        if isinstance(fact, dict):
            fact["spelling"] = older_spelling(records, spellings, fact, repo)
        if gpu_only(b):
            names += [fact["release"]] if isinstance(fact, dict) else []
        else:
            cpu.append((b, fact))

    def key(f):
        return (f["release"], f["failed_on"], f["error"], f["shown"]) if isinstance(f, dict) else f

    common_key = Counter(key(f) for _, f in cpu).most_common(1)[0][0] if cpu else None
    common = next((f for _, f in cpu if key(f) == common_key), None)
    others = [{"label": label(b), "fact": f} for b, f in cpu if key(f) != common_key]
    known = [f["release"] for _, f in cpu if isinstance(f, dict)]
    shown = set()
    for f in [common, *(o["fact"] for o in others)]:  # in the note's order: a spelling shown once, then referred to
        if isinstance(f, dict) and (s := f["spelling"]) is not None:
            f["spelling"] = s | {"again": (s["snippet"], s["before"]) in shown}
            shown.add((s["snippet"], s["before"]))
    newest = max(known, key=release_key) if known else None
    return {"common": common, "blocks": others, "newest": newest, "has_cpu": bool(cpu),
            "mixed": any(release_key(r) < release_key(newest) for r in known) if known else False,
            "untried": sum(f is None for _, f in cpu),
            "cuda": max(names, key=release_key) if names else None}


def shown_snippets(records: list[dict], page: str, spellings: list[dict], repo: Path = DOCS.parent) -> list[str]:
    """The older spellings' snippet files that page's note includes, in order."""
    facts = compat_facts(records, page, spellings, repo)
    rows = [facts["common"], *(b["fact"] for b in facts["blocks"])]
    spelt = [f["spelling"] for f in rows if isinstance(f, dict) and f["spelling"]]
    return [s["snippet"] for s in spelt if not s["again"]]


# ---- GPU runs --------------------------------------------------------------------------------------------------

def gpu_facts(gpu_records: list[dict], page: Path, repo: Path) -> dict | None:
    """What the note says of GPUs for page (its path): "last", the newest GPU record of the page's code as it is
    now, with "failed" (its failed and erroneous blocks); "earlier", the newest that ran an earlier version;
    "two_gpus": whether the page has blocks needing two GPUs that no record of it now had. None where the page has
    no block only a GPU runs and no GPU record has it."""
    path = page.resolve().relative_to(repo.resolve()).as_posix()
    blocks = runnable(page)
    digest = page_code_digest(page, repo)
    has = sorted((r for r in gpu_records if path in r["pages"]), key=lambda r: r["date"], reverse=True)
    now = [r for r in has if r.get("page_digests", {}).get(path) == digest]
    if not has and not any(gpu_only(b) for b in blocks):
        return None
    last = now[0] if now else None
    two = any("multi_gpu" in m for b in blocks for m in b.marks)
    return {"last": last, "failed": last and last["pages"][path]["failed"] + last["pages"][path]["errors"],
            "earlier": None if now else next(iter(has), None),
            "two_gpus": two and not any(r["cuda_device_count"] >= 2 for r in now)}


def pinned_torch(repo: Path) -> str:
    return re.search(r"^torch==(\S+)", (repo / "requirements.txt").read_text(encoding="utf-8"), re.M)[1]


def render(state: dict, t: dict, page: Path, name: str) -> str:
    """The note at the foot of page (its path; name: the path under docs/<lang>/), in t's language."""
    return templates().get_template("provenance/note.md").render(
        t=t, torch=state["torch"], gpu=gpu_facts(state["gpu"], page, state["repo"]),
        runs_page=VERIFICATION_PAGE, **compat_facts(state["compat"], name, state["spellings"], state["repo"]),
    ).strip("\n") + "\n"


def runs(state: dict, t: dict) -> str:
    """The Verification page's body: every GPU run, newest first, with each failure and its note."""
    note_of = {(n["record"], n["test"]): n for n in state["notes"]}
    rows = [{"record": r, "failures": [{"test": f["test"], **note_of[(r["_file"], f["test"])]} for f in r["failures"]]}
            for r in sorted(state["gpu"], key=lambda r: r["date"], reverse=True)]
    return templates().get_template("provenance/runs.md").render(
        t=t, lang=t["lang"], flow=flow, runs=rows).strip("\n") + "\n"


def load_gpu(data: Path, repo: Path) -> tuple[list[dict], list[dict]]:
    """The GPU records (a CPU record, such as a local --verification-record run writes, is CI's status: left out)
    and the notes on their failures; a failure without a note stops the build naming it."""
    records = [load_data(f, data / "verification.schema.json", repo) | {"_file": f.name}
               for f in sorted((data / "verification").glob("*.json"))]
    records = [r for r in records if r["device_type"] != "cpu"]
    notes = load_data(data / "verification-notes.yml", data / "verification-notes.schema.json", repo)
    known = {(n["record"], n["test"]) for n in notes}
    if missing := [f"{r['_file']}: {f['test']}" for r in records for f in r["failures"]
                   if (r["_file"], f["test"]) not in known]:
        raise PluginError(f"docs/data/verification-notes.yml: no note for the failure {missing[0]}")
    return records, notes


_state: dict = {}


def on_pre_build(config) -> None:
    repo = Path(config["config_file_path"]).parent
    data = Path(config["docs_dir"]) / "data"
    gpu, notes = load_gpu(data, repo)
    _state.update(repo=repo, torch=pinned_torch(repo), compat=load(data, repo), spellings=load_spellings(data, repo),
                  gpu=gpu, notes=notes,
                  words={lang: w | {"lang": lang} for lang, w in load_text("provenance", repo).items()})


def on_page_markdown(markdown: str, page, config, files) -> str:
    lang, name = language_of(page.file.src_uri), page.file.src_uri.split("/", 1)[-1]
    if page.file.src_uri.endswith(VERIFICATION_PAGE) and RUNS_MARKER in markdown:
        return markdown.replace(RUNS_MARKER, runs(_state, _state["words"][lang]))
    if lang not in LANGUAGES or not any(f.runs for f in fences(markdown)):
        return markdown
    note = render(_state, _state["words"][lang], Path(page.file.abs_src_path), name)
    return markdown.rstrip("\n") + "\n\n" + note
