"""The compatibility run: every block of the English pages on the CPU with older PyTorch releases; one line per
block and release in docs/data/compat/<release>.jsonl (schema docs/data/compat.schema.json), each with its own run's
provenance, from which each page's note shows the oldest release its blocks ran on (docs/hooks/provenance.py).

    make compat                          # every release of docs/hooks/provenance.py's RELEASES, one after another
    make compat RELEASES="2.4 2.6"       # those only
    make compat RELEASES=2.4 COMPAT_ARGS=--blocks=devices.md:7   # one block: only its line is rewritten

Each release is installed from PyPI (torch, its torchvision, the snippets' other packages at the project's pins) into
a venv under .compat/ (git-ignored), run, and removed again: a release's CUDA build takes 5-6 GB. `--python-for
2.15=.venv/bin/python` uses an interpreter that has the release already. The blocks run in tools/compat_child.py,
inside that venv; CUDA-only blocks are not run, their torch names are looked up. A run also runs the older spellings
(docs/data/older_spellings.yml), each snippet file as a program, recorded as spelling:<its name>.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "docs" / "hooks"), str(REPO / "snippets" / "mnist"), str(REPO / "tests")]

from bench import git_commit  # noqa: E402  (snippets/mnist: the records' provenance, as the benchmark's)

from mnist_data import ensure_local_mnist  # noqa: E402  (tests/: standard library only, as for tools/gpu_job.py)
from provenance import NOT_RUN_ON_CPU as NOT_RUN  # noqa: E402  (docs/hooks)
from provenance import ORDER, RELEASES, SPELLING, label, load_spellings, release_key  # noqa: E402
from site_pages import (  # noqa: E402
    PROGRAM_ARGS,
    RUN_SYNTAXES,
    SNIPPET_FILE,
    SNIPPETS,
    block_digest,
    page_blocks,
    pages,
)

CACHE = REPO / ".compat"  # the venvs, one at a time (git-ignored)
RECORDS = REPO / "docs" / "data" / "compat"
# the snippets' packages besides torch and torchvision, at the project's pins (requirements.txt)
EXTRAS = ("tqdm", "accelerate", "jsonschema")


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
        return block_digest(self.syntax, self.code, REPO)


def blocks(lang: str = "en") -> list[Block]:
    """Every runnable block of the lang pages, in page order."""
    found = []
    for page in pages(lang):
        for b in page_blocks(page.path):  # as the tests collect them
            e = b.expanded
            if e.syntax in RUN_SYNTAXES:
                marks = tuple(m.split(".")[-1].split("(")[0].strip() for m in e.marks)
                found.append(Block(page.name, b.index, e.syntax, e.code, marks, e.expected_output, label(b)))
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
            return {"id": block.id, "kind": "program", "code": rel, "args": PROGRAM_ARGS.get(rel, [])}
    return {"id": block.id, "kind": "exec", "code": block.code}


def entry(block: Block, result: dict, provenance: dict) -> dict:
    """A block's line in a record, from the child's result, with its run's provenance."""
    line = {"id": block.id, "digest": block.digest}
    if "missing" in result:
        line |= {"outcome": "skipped", "missing": result["missing"]}
    elif result["status"]:
        line |= {"outcome": "failed", "error": result["error"] or "failed"}
    else:
        shown = {} if block.expected is None else {"as_shown": result["stdout"] == block.expected}
        line |= {"outcome": "ran"} | shown
    return line | ({"warnings": result["warnings"]} if result.get("warnings") else {}) | provenance


def requirement_pins(names: tuple[str, ...] = EXTRAS) -> list[str]:
    pins = [line.split("#")[0].strip() for line in (REPO / "requirements.txt").read_text().splitlines()]
    return [p for p in pins if p.split("==")[0] in names]


def run_command(command: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(command, check=True, **kw)


def install(release: str, python: str) -> Path:
    """A fresh venv with release's torch and torchvision (no pip cache kept)."""
    torch_pin, vision_pin = RELEASES[release]
    venv = CACHE / f"venv-{release}"
    shutil.rmtree(venv, ignore_errors=True)
    run_command([python, "-m", "venv", str(venv)])
    run_command([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-cache-dir",
                 f"torch=={torch_pin}", f"torchvision=={vision_pin}", *requirement_pins()])
    return venv


def run_release(release: str, interpreter: str, chosen: list[Block]) -> list[dict]:
    """Run the chosen blocks with interpreter: one line per block, each with this run's provenance."""
    ensure_local_mnist()  # pages train on real MNIST without downloading it
    CACHE.mkdir(exist_ok=True)
    jobs_file, results_file = CACHE / f"jobs-{release}.json", CACHE / f"results-{release}.jsonl"
    jobs_file.write_text(json.dumps([job(b) for b in chosen]))
    subprocess.run([interpreter, str(REPO / "tools" / "compat_child.py"), str(jobs_file), str(results_file)],
                   check=True, cwd=REPO)
    lines = [json.loads(line) for line in results_file.read_text().splitlines()]
    by_id = {r["id"]: r for r in lines[1:]}
    commit, dirty = git_commit(REPO)
    provenance = {"torch": lines[0]["versions"]["torch"], "commit": commit, "dirty": dirty,
                  "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    return [entry(b, by_id[b.id], provenance) for b in chosen]


def merged(old: list[dict], new: list[dict], whole: bool) -> list[dict]:
    """A release's lines after a run: a run of every block replaces them all; a run of some replaces only the
    lines of the blocks it ran and leaves every other line as it was."""
    ran = {e["id"] for e in new}
    return new if whole else [e for e in old if e["id"] not in ran] + new


def write(release: str, entries: list[dict], whole: bool) -> Path:
    path = RECORDS / f"{release}.jsonl"
    old = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.is_file() else []
    order = {b.id: i for i, b in enumerate(runnable())}
    lines = sorted(merged(old, entries, whole), key=lambda e: (order.get(e["id"], len(order)), e["id"]))
    RECORDS.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in lines),
                    encoding="utf-8")
    return path


def one_release(release: str, chosen: list[Block], whole: bool, python: str, python_for: dict[str, str],
                keep: bool) -> list[dict]:
    """Install (unless python_for has it), run, write the lines, remove the venv."""
    venv, interpreter = None, python_for.get(release)
    start = time.monotonic()
    if interpreter is None:
        print(f"compat: installing torch {RELEASES[release][0]} ...", flush=True)
        venv = install(release, python)
        interpreter = str(venv / "bin" / "python")
    print(f"compat: running {len(chosen)} blocks with {interpreter} ...", flush=True)
    entries = run_release(release, interpreter, chosen)
    if venv is not None and not keep:
        shutil.rmtree(venv)
    path = write(release, entries, whole)
    failed = sum(e["outcome"] == "failed" for e in entries)
    print(f"compat: {release}: {len(entries)} blocks, {failed} failed, {time.monotonic() - start:.0f} s "
          f"-> {path.relative_to(REPO)}", flush=True)
    return entries


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
    parser.add_argument("--blocks", help="comma-separated block ids (devices.md:7, spelling:tf32_flags) to run "
                        "instead of all: only their lines are rewritten")
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
        chosen = runnable()
        if args.blocks:
            wanted = args.blocks.split(",")
            if unknown := [w for w in wanted if w not in {b.id for b in chosen}]:
                raise Stop(f"--blocks: no block {unknown[0]} (ids are page:number, e.g. devices.md:7)")
            chosen = [b for b in chosen if b.id in wanted]
    except Stop as stop:
        print(f"compat_run: {stop}", file=sys.stderr)
        return 2
    status = 0
    for release in sorted(releases, key=release_key):  # one release's failure leaves the others to run
        try:
            one_release(release, chosen, not args.blocks, args.python, python_for, args.keep)
        except subprocess.CalledProcessError as error:
            print(f"compat_run: {release}: {' '.join(map(str, error.cmd))[:200]} exited with status "
                  f"{error.returncode}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
