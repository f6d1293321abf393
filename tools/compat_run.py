"""The compatibility run: every block of the English pages on the CPU with older PyTorch releases, one record per
release (docs/data/compat/<release>.json, schema docs/data/compat.schema.json) from which each page shows the oldest
release its blocks ran on (docs/hooks/compat.py).

    make compat                         # every release of docs/hooks/compat.py's RELEASES
    make compat RELEASES="2.4 2.6"      # those only
    .venv/bin/python tools/compat_run.py --bisect 2.4 2.15   # the oldest release of each block, by bisection
    .venv/bin/python tools/compat_run.py --bisect --fresh 2.4 2.15   # the same, running both ends in full first

Each release is installed from PyPI (torch, its torchvision, the snippets' other packages at the project's pins) into
a venv under .compat/ (git-ignored), run, and removed again: a release's CUDA build takes 5-6 GB. `--python-for
2.15=.venv/bin/python` uses an interpreter that has the release already. The blocks run in tools/compat_child.py,
inside that venv; CUDA-only blocks are not run, their torch names are looked up.

--bisect places each block's oldest release (docs/hooks/compat.py's oldest(): the oldest release it ran on, a CUDA-only
block's with all its torch names, with every newer recorded release good too) between the first and the last release
given, starting from the committed records: a block's entries count where their digest is the block's now. A block
without such an entry on the first or the last release is run there; then each block whose oldest release is not
exact, i.e. lies between the newest release it failed on and its oldest good one with a release in between, is run on
the midpoint of that range, together with every other such block whose range holds the same release (an install
costs minutes, a block seconds), until every range is adjacent. --fresh ignores the records: every block runs on
both ends first, as a first bisection does. Where a block ran but printed another output than the page's, the page
says since when it prints it "of the releases tried"; bisection does not place that release.

A run also runs the older spellings (docs/data/older_spellings.yml: how to write, before a release, what a block
uses), each snippet file as a program, recorded as the entry spelling:<its name>; `--blocks spelling:<name>,...`
runs those alone, and the entries join the release's record (merged()).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import json
import platform
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from mkdocs.exceptions import PluginError

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "docs" / "hooks"), str(REPO / "tests"), str(REPO / "snippets" / "mnist")]

from bench import git_commit  # noqa: E402  (snippets/mnist: the records' provenance, as the benchmark's)

import compat  # noqa: E402  (docs/hooks)
from codeblocks_plugin import page_blocks  # noqa: E402  (tests/: the pages' blocks, raw and expanded)
from compat import ORDER, RELEASES, SPELLING, load_spellings, oldest, release_key  # noqa: E402  (docs/hooks)
from site_pages import BLOCK_MARKS, INCLUDE, RUN_SYNTAXES, SNIPPETS, code_comments, pages  # noqa: E402

CACHE = REPO / ".compat"  # the venvs, one at a time (git-ignored)
RECORDS = REPO / "docs" / "data" / "compat"
# the snippets' packages besides torch and torchvision, at the project's pins (requirements.txt)
EXTRAS = ("tqdm", "accelerate", "jsonschema")
SNIPPET_FILE = re.compile(r"\bsnippets/[\w/]+\.py\b")
NOT_RUN = ("cuda", "multi_gpu")  # marks of blocks the CPU run does not run (BLOCK_MARKS)


class Stop(Exception):
    """Bad input: one line for the user, exit status 2."""


@dataclass(frozen=True)
class Block:
    """One runnable fence of an English page, as pytest-codeblocks reads it (includes expanded)."""

    page: str  # "devices.md"
    index: int  # its number among the page's blocks, as the tests name it ("block 7")
    syntax: str
    code: str
    marks: tuple[str, ...]
    expected: str | None
    label: str  # what it shows: "snippets/x.py:name", or the command's first line

    @property
    def id(self) -> str:
        return f"{self.page}:{self.index}"

    @property
    def snippet_files(self) -> list[str]:
        """The snippet files a shell block runs."""
        return list(dict.fromkeys(SNIPPET_FILE.findall(self.code))) if self.syntax != "python" else []

    @property
    def digest(self) -> str:
        """What decides how the block behaves: its code without comments, and a shell block's snippet files."""
        parts = [self.syntax, strip_comments(self.code) if self.syntax == "python" else self.code]
        parts += [strip_comments((REPO / f).read_text(encoding="utf-8")) for f in self.snippet_files
                  if (REPO / f).is_file()]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def strip_comments(code: str) -> str:
    lines = code.splitlines()
    for row, column, _ in code_comments(code):
        lines[row - 1] = lines[row - 1][:column].rstrip()
    return "\n".join(line for line in lines if line.strip())


def blocks(lang: str = "en") -> list[Block]:
    """Every runnable block of the lang pages, in page order."""
    found = []
    for page in pages(lang):
        for i, r, e in ((b.index, b.raw, b.expanded) for b in page_blocks(page.path)):  # as the tests collect them
            if e.syntax not in RUN_SYNTAXES:
                continue
            label = ", ".join(INCLUDE.findall(r.code)) or r.code.strip().splitlines()[0].rstrip(" \\")[:80]
            found.append(Block(page.name, i, e.syntax, e.code, tuple(m.split(".")[-1].split("(")[0].strip()
                                                                     for m in e.marks), e.expected_output, label))
    return found


@dataclass(frozen=True)
class Spelling(Block):
    """An older spelling (docs/data/older_spellings.yml): its snippet file, run as a program, as a page's block that
    shows a whole file is; its record's id is spelling:<the file's name>."""

    @property
    def id(self) -> str:
        return f"{SPELLING}{Path(self.label).stem}"


def spellings() -> list[Block]:
    """Every older spelling's snippet file, once each, in the data file's order."""
    files = dict.fromkeys(e["snippet"] for e in load_spellings(REPO / "docs" / "data", REPO))
    return [Spelling("spelling", 0, "python", (REPO / f).read_text(encoding="utf-8"), (), None, f) for f in files]


def runnable() -> list[Block]:
    """What a run runs: the English pages' blocks, then the older spellings."""
    return blocks() + spellings()


def torch_names(code: str) -> list[str]:
    """The dotted torch names code uses (torch.cuda.Stream, torch.accelerator.current_accelerator): attribute chains
    rooted at `torch` or at a name bound by `import torch.x as y` / `from torch.x import y`, and imported names."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    alias: dict[str, str] = {}
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    alias[a.asname or "torch"] = a.name if a.asname else "torch"
                    names.add(a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "torch":
            for a in node.names:
                if a.name != "*":
                    alias[a.asname or a.name] = f"{node.module}.{a.name}"
                    names.add(f"{node.module}.{a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain, inner = [], node
            while isinstance(inner, ast.Attribute):
                chain.append(inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id in alias:
                names.add(".".join([alias[inner.id], *reversed(chain)]))
    # a chain's prefixes are looked up with it: keep the longest ones
    return sorted(n for n in names if not any(o.startswith(n + ".") for o in names))


def program_args() -> dict[str, list[str]]:
    from snippet_runs import ARGS  # the arguments a quick real run of a command-line snippet needs

    return ARGS


def job(block: Block) -> dict:
    """What tools/compat_child.py runs for block."""
    if any(m in NOT_RUN for m in block.marks):
        code = block.code if block.syntax == "python" else "\n".join(
            (REPO / f).read_text(encoding="utf-8") for f in block.snippet_files if (REPO / f).is_file())
        return {"id": block.id, "kind": "names", "names": torch_names(code)}
    if block.syntax != "python":
        return {"id": block.id, "kind": "shell", "code": block.code}
    for path in sorted(SNIPPETS.rglob("*.py")):  # a whole snippet file: run as a program, as the tests do
        if path.read_text(encoding="utf-8").strip() == block.code.strip():
            rel = path.relative_to(REPO).as_posix()
            return {"id": block.id, "kind": "program", "code": rel, "args": program_args().get(rel, [])}
    return {"id": block.id, "kind": "exec", "code": block.code}


def squeeze(text: str, ignore_whitespace: bool) -> str:
    return re.sub(r"\s+", "", text) if ignore_whitespace else text


def entry(block: Block, result: dict) -> dict:
    """A block's entry in a record, from the child's result."""
    base = {"id": block.id, "label": block.label, "digest": block.digest}
    if "missing" in result:
        reason = next(BLOCK_MARKS[m].skip_reason for m in block.marks if m in NOT_RUN)
        return base | {"outcome": "skipped", "reason": reason, "missing_names": result["missing"]}
    if result["status"]:
        return base | {"outcome": "failed", "error": result["error"] or "failed", "warnings": result["warnings"]}
    shown = None if block.expected is None else result["stdout"] == block.expected
    return base | {"outcome": "ran", "output_as_shown": shown, "warnings": result["warnings"]}


def requirement_pins(names: tuple[str, ...] = EXTRAS) -> list[str]:
    pins = [line.split("#")[0].strip() for line in (REPO / "requirements.txt").read_text().splitlines()]
    return [p for p in pins if p.split("==")[0] in names]


def run_command(command: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=True, **kw)


def install(release: str, python: str) -> tuple[Path, float]:
    """A fresh venv with release's torch and torchvision (no pip cache kept); its folder and the seconds it took."""
    torch_pin, vision_pin = RELEASES[release]
    venv = CACHE / f"venv-{release}"
    shutil.rmtree(venv, ignore_errors=True)
    start = time.monotonic()
    run_command([python, "-m", "venv", str(venv)])
    run_command([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-cache-dir",
                 f"torch=={torch_pin}", f"torchvision=={vision_pin}", *requirement_pins()])
    return venv, time.monotonic() - start


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def run_release(release: str, interpreter: str, chosen: list[Block]) -> tuple[dict, list[dict]]:
    """Run the chosen blocks with interpreter: the child's header and one entry per block."""
    from mnist_data import ensure_local_mnist

    ensure_local_mnist()  # pages train on real MNIST without downloading it (tests/mnist_data.py)
    CACHE.mkdir(exist_ok=True)
    jobs_file, results_file = CACHE / f"jobs-{release}.json", CACHE / f"results-{release}.jsonl"
    jobs_file.write_text(json.dumps([job(b) for b in chosen]))
    subprocess.run([interpreter, str(REPO / "tools" / "compat_child.py"), str(jobs_file), str(results_file)],
                   check=True, cwd=REPO)
    lines = [json.loads(line) for line in results_file.read_text().splitlines()]
    by_id = {r["id"]: r for r in lines[1:]}
    return lines[0], [entry(b, by_id[b.id]) for b in chosen]


def record(release: str, header: dict, entries: list[dict], scope: str, seconds: dict, disk: dict) -> dict:
    commit, dirty = git_commit(REPO)
    return {
        "release": release,
        "torch": header["versions"]["torch"],
        "torchvision": header["versions"]["torchvision"],
        "python": header["versions"]["python"],
        "platform": f"{platform.system()} {platform.machine()}",
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        "commit_dirty": dirty,
        "scope": scope,
        "seconds": seconds,
        "disk": disk,
        "import_warnings": header["import_warnings"],
        "blocks": entries,
    }


def merged(old: dict | None, new: dict, current: list[str]) -> dict:
    """new, keeping old's entries of the same torch for the current blocks new did not run (a run of some blocks
    updates its release's record); "all" where the entries then cover every current block of the pages."""
    if old is None or old["torch"] != new["torch"]:
        return new
    ran = {e["id"] for e in new["blocks"]}
    entries = [e for e in old["blocks"] if e["id"] not in ran and e["id"] in current] + new["blocks"]
    entries.sort(key=lambda e: current.index(e["id"]) if e["id"] in current else len(current))
    pages_blocks = {i for i in current if not i.startswith(SPELLING)}  # the older spellings aside
    scope = "all" if pages_blocks <= {e["id"] for e in entries} else new["scope"]
    return new | {"scope": scope, "blocks": entries}


def one_release(release: str, chosen: list[Block], scope: str, python: str, python_for: dict[str, str],
                keep: bool) -> dict:
    """Install (unless python_for has it), run, write the record, remove the venv; the record."""
    free_before = shutil.disk_usage(REPO).free
    venv, install_s = None, None
    interpreter = python_for.get(release)
    if interpreter is None:
        print(f"compat: installing torch {RELEASES[release][0]} ...", flush=True)
        venv, install_s = install(release, python)
        interpreter = str(venv / "bin" / "python")
    # a venv of .compat/ made beforehand (--python-for .compat/venv-2.4/bin/python) is measured too
    made = Path(interpreter).absolute().parents[1]
    measured = made if made.is_relative_to(CACHE) else None
    disk = {"venv_bytes": folder_bytes(measured) if measured else None,
            "free_before_bytes": free_before, "free_installed_bytes": shutil.disk_usage(REPO).free}
    print(f"compat: running {len(chosen)} blocks with {interpreter} ...", flush=True)
    start = time.monotonic()
    header, entries = run_release(release, interpreter, chosen)
    seconds = {"install": None if install_s is None else round(install_s, 1), "run": round(time.monotonic() - start, 1)}
    if venv is not None and not keep:
        shutil.rmtree(venv)
    path = RECORDS / f"{release}.json"
    old = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    rec = merged(old, record(release, header, entries, scope, seconds, disk), [b.id for b in runnable()])
    RECORDS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    failed = sum(e["outcome"] == "failed" for e in entries)
    print(f"compat: {release}: {len(entries)} blocks, {failed} failed, install {seconds['install']} s, "
          f"run {seconds['run']} s -> docs/data/compat/{release}.json", flush=True)
    return rec


def next_probe(low: str, high: str) -> str | None:
    """The release halfway between low (a block failed there) and high (it ran there); None when adjacent."""
    a, b = release_key(low), release_key(high)
    return ORDER[(a + b) // 2] if b - a > 1 else None


def current(records: list[dict], all_blocks: list[Block], first: str, last: str) -> list[dict]:
    """The records of the releases first..last, each keeping the entries of all_blocks whose digest is the block's now
    (an entry of edited code says nothing of the code on the page)."""
    digests = {b.id: b.digest for b in all_blocks}
    span = range(release_key(first), release_key(last) + 1)
    return [r | {"blocks": [e for e in r["blocks"] if digests.get(e["id"]) == e["digest"]]}
            for r in records if release_key(r["release"]) in span]


def with_run(records: list[dict], release: str, entries: list[dict]) -> list[dict]:
    """records with a run's entries on release: they replace that release's entries of the same blocks."""
    ran = {e["id"] for e in entries}
    others = [r for r in records if r["release"] != release]
    kept = [e for r in records if r["release"] == release for e in r["blocks"] if e["id"] not in ran]
    return [*others, {"release": release, "scope": "bisect", "blocks": kept + entries}]


def unplaced(records: list[dict], ids: list[str]) -> dict[str, tuple[str, str]]:
    """Each block whose oldest release is not exact: (the newest release it failed on, its oldest good one), the range
    its oldest release lies in. A block that fails on its newest record, or has no failure below its oldest good
    release, has none."""
    found = {}
    for i in ids:
        fact = oldest(records, i)
        if fact is not None and not fact["exact"] and fact["failed_on"] is not None:
            found[i] = (fact["failed_on"], fact["release"])
    return found


def next_release(ranges: dict[str, tuple[str, str]]) -> tuple[str, list[str]] | None:
    """The release to install next and the blocks to run on it: of the ranges' midpoints, the one inside most ranges
    (the newest on a tie), with every block whose range holds it; None when every range is adjacent."""
    def inside(release: str) -> list[str]:
        return [i for i, (lo, hi) in ranges.items() if release_key(lo) < release_key(release) < release_key(hi)]

    midpoints = {p for lo, hi in ranges.values() if (p := next_probe(lo, hi))}
    if not midpoints:
        return None
    release = max(midpoints, key=lambda r: (len(inside(r)), release_key(r)))
    return release, inside(release)


def end_runs(records: list[dict], all_blocks: list[Block], release: str) -> list[Block]:
    """The blocks that have no entry on release in records: they run there first."""
    have = {e["id"] for r in records if r["release"] == release for e in r["blocks"]}
    return [b for b in all_blocks if b.id not in have]


def bisect(first: str, last: str, all_blocks: list[Block], run, records: list[dict] = ()) -> None:
    """Place each block's oldest release between first and last (the module's docstring), from records (none: every
    block runs on both ends first). run(release, blocks, scope) -> the record."""
    known = current(list(records), all_blocks, first, last)
    for end in (first, last):
        if chosen := end_runs(known, all_blocks, end):
            scope = "all" if len(chosen) == len(all_blocks) else "bisect"
            known = with_run(known, end, run(end, chosen, scope)["blocks"])
    tried = {(e["id"], r["release"]) for r in known for e in r["blocks"]}
    while step := next_release(unplaced(known, [b.id for b in all_blocks])):
        release, ids = step
        if again := [i for i in ids if (i, release) in tried]:  # a run that did not answer for a block
            raise Stop(f"--bisect: {again[0]} was run on {release} already and its range did not narrow")
        tried |= {(i, release) for i in ids}
        known = with_run(known, release, run(release, [b for b in all_blocks if b.id in ids], "bisect")["blocks"])


def parse_python_for(values: list[str]) -> dict[str, str]:
    found = {}
    for value in values:
        release, _, path = value.partition("=")
        if release not in RELEASES or not path:
            raise Stop(f"--python-for {value}: expected RELEASE=PATH with RELEASE one of {', '.join(ORDER)}")
        if not Path(path).is_file():
            raise Stop(f"--python-for {value}: no such interpreter {path}")
        found[release] = path
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("releases", nargs="*", help=f"minor releases to run (default: all of {ORDER[0]}-{ORDER[-1]})")
    parser.add_argument("--bisect", action="store_true", help="place each block's oldest release by bisection "
                        "between the first and the last release given")
    parser.add_argument("--fresh", action="store_true", help="with --bisect: run every block on both ends first "
                        "instead of starting from the committed records")
    parser.add_argument("--blocks", help="comma-separated block ids (devices.md:7, spelling:tf32_flags) to run "
                        "instead of all")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that makes the venvs")
    parser.add_argument("--python-for", action="append", default=[], metavar="RELEASE=PATH",
                        help="use this interpreter (which has the release installed) instead of installing it")
    parser.add_argument("--keep", action="store_true", help="keep the venvs in .compat/ (5-6 GB each)")
    args = parser.parse_args(argv)
    try:
        releases = args.releases or ORDER
        if bad := [r for r in releases if r not in RELEASES]:
            raise Stop(f"unknown release {bad[0]}: expected one of {', '.join(ORDER)}")
        python_for = parse_python_for(args.python_for)
        all_blocks = runnable()
        if args.blocks:
            wanted = args.blocks.split(",")
            if unknown := [w for w in wanted if w not in {b.id for b in all_blocks}]:
                raise Stop(f"--blocks: no block {unknown[0]} (ids are page:number, e.g. devices.md:7)")
            all_blocks = [b for b in all_blocks if b.id in wanted]
        ordered = sorted(releases, key=release_key)
        if args.fresh and not args.bisect:
            raise Stop("--fresh: only with --bisect (a plain run always runs its releases in full)")

        def run(release, chosen, scope):
            return one_release(release, chosen, scope, args.python, python_for, args.keep)

        if args.bisect:
            if len(ordered) != 2:
                raise Stop("--bisect: give the first and the last release, e.g. --bisect 2.4 2.15")
            try:
                records = [] if args.fresh else compat.load(RECORDS.parent, REPO)
            except PluginError as error:  # a malformed record: the build's one line, naming file and field
                raise Stop(str(error)) from None
            bisect(ordered[0], ordered[1], all_blocks, run, records)
        else:
            for release in ordered:
                run(release, all_blocks, "all" if not args.blocks else "bisect")
    except Stop as stop:
        print(f"compat_run: {stop}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:
        print(f"compat_run: {' '.join(map(str, error.cmd))[:200]} exited with status {error.returncode}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
