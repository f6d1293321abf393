"""pytest plugin: every runnable fence of every page is a test, read by pytest-codeblocks and run as it runs them.

Glue because pytest-codeblocks reads raw Markdown while the pages hold only `--8<--` includes: each page is
expanded first (site_pages.expand_includes, comments in the page's language). Each piece of code runs once per test
run: a block that the languages show with the same code (their copies differ in comments and translated docstrings
only) runs once, and a block that shows a whole snippet file reads that file's one run as a program
(snippet_runs.run_snippet), which test_snippets.py checks too. GPU marks become skips with a reason, counted at the
end of the run.
"""

from __future__ import annotations

import ast
import functools
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_codeblocks import CodeBlock, extract_from_buffer
from pytest_codeblocks.main import stdout_io
from pytest_codeblocks.plugin import TestBlock

import run_share
from block_warnings import Warned, counts, from_stderr, recording, report, unexplained
from mnist_data import ensure_local_mnist
from site_pages import (
    BLOCK_MARKS,
    DOCS,
    INCLUDE,
    LANGUAGES,
    REPO,
    RUN_SYNTAXES,
    SNIPPETS,
    code_comments,
    expand_includes,
    pages,
)
from snippet_runs import run_snippet


@functools.cache
def cuda_device_count() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def skip_reason(marks, gpus: int) -> str | None:
    """Why a machine with this many CUDA GPUs skips a test with these marks (site_pages.BLOCK_MARKS), or None."""
    return next((BLOCK_MARKS[m].skip_reason for m in marks if m in BLOCK_MARKS
                 and not BLOCK_MARKS[m].fewest_gpus <= gpus <= BLOCK_MARKS[m].most_gpus), None)


@dataclass
class PageBlock:
    """One test of a page as pytest-codeblocks sees it (a fence, with its expected output folded in): what
    the page source holds (raw) and what runs (expanded)."""

    page: Path
    index: int
    raw: CodeBlock
    expanded: CodeBlock

    @property
    def includes(self) -> list[str]:
        return INCLUDE.findall(self.raw.code)

    @property
    def marks(self) -> list[str]:
        return [m.strip() for m in self.raw.marks]

    @property
    def label(self) -> str:
        return f"block {self.index} [{', '.join(self.includes) or self.raw.syntax or 'text'}]"


@functools.cache
def page_lines(page: Path) -> list[str]:
    return page.read_text(encoding="utf-8").splitlines()


@functools.cache  # read once per run: collection, the snippet runs and the site tests all ask for the same pages
def page_blocks(page: Path) -> tuple[PageBlock, ...]:
    text = page.read_text(encoding="utf-8")
    raw = extract_from_buffer(io.StringIO(text))
    expanded = extract_from_buffer(io.StringIO(expand_includes(text, page.parent.name)))
    return tuple(PageBlock(page, i + 1, r, e) for i, (r, e) in enumerate(zip(raw, expanded, strict=True)))


def pytest_configure(config):
    # bash blocks on the pages say `python`/`torchrun`: make those the interpreter running the tests
    os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    for name, mark in BLOCK_MARKS.items():
        config.addinivalue_line("markers", f"{name}: {mark.skip_reason}")


def pytest_sessionstart(session):
    with run_share.lock("mnist"):  # one process of the run decompresses, the others find the files
        ensure_local_mnist()  # pages train on real MNIST without downloading it


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".md" and file_path.parent.parent == DOCS and file_path.parent.name in LANGUAGES:
        return ExpandedPage.from_parent(parent, path=file_path)
    return None


# a block's output and the warnings it raised, by what decides its behaviour (behaviour_key): the languages' copies of
# one block differ only in their comments' language and in translated docstrings (site_pages.translate_comments
# changes nothing else), so the first to run does so for all
_passed_runs: dict[tuple[str, str], tuple[str, tuple[Warned, ...]]] = {}
# a page's shell blocks, started together when the first of them runs: each is a program that spends seconds
# importing torch while the others wait, and none reads what another writes
_started: dict[tuple[str, str], subprocess.Popen] = {}


def run_key(block: CodeBlock) -> tuple[str, str]:
    """The block's syntax and its code without comments."""
    if block.syntax != "python":
        return block.syntax, block.code
    lines = block.code.splitlines()
    for row, column, _ in code_comments(block.code):
        lines[row - 1] = lines[row - 1][:column]
    return block.syntax, "\n".join(lines)


def behaviour_key(syntax: str, code: str) -> tuple[str, str]:
    """What decides how code behaves: for Python that parses, its syntax tree without docstrings (unless the code
    reads a __doc__) and without comments or layout; for anything else, the code without comments."""
    if syntax == "python":
        try:
            tree = ast.parse(code)
        except SyntaxError:
            tree = None
        if tree is not None:
            if "__doc__" not in code:
                for node in ast.walk(tree):
                    if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                            and ast.get_docstring(node, clean=False) is not None:
                        node.body = node.body[1:] or [ast.Pass()]
            return syntax, ast.dump(tree)
    return run_key(CodeBlock(code, 0, syntax))


def snippets_run_by_pages() -> set[str]:
    """Snippet files that a page's bash block runs as a program (`python snippets/x.py ...`), in each language."""
    return {path for page in pages() for block in page_blocks(page.path) if block.raw.syntax in {"bash", "sh"}
            for path in re.findall(r"\bsnippets/[\w/]+\.py\b", block.raw.code)}


@functools.cache
def programs() -> dict[tuple[str, str], str]:
    """behaviour_key -> snippet file, for every snippet that test_snippets.py runs as a program (those no page's bash
    block runs): a page block that shows such a whole file reads that one run instead of running again."""
    run_by_pages = snippets_run_by_pages()
    found = {}
    for path in sorted(SNIPPETS.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel not in run_by_pages:
            found[behaviour_key("python", path.read_text(encoding="utf-8"))] = rel
    return found


# every torchrun rank that a shell block starts fails at its exit if a Gloo thread is left (its sitecustomize)
RANK_EXIT_CHECK = Path(__file__).parent / "rank_exit_check"


def start_command(block: CodeBlock) -> subprocess.Popen:
    shell = "/bin/bash" if block.syntax == "bash" else None
    path = os.pathsep.join(filter(None, [str(RANK_EXIT_CHECK), os.environ.get("PYTHONPATH")]))
    return subprocess.Popen(block.code, shell=True, executable=shell, cwd=REPO, text=True,
                            env={**os.environ, "PYTHONPATH": path, "GLOO_EXIT_CHECK": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


class PageBlockItem(TestBlock):
    """pytest-codeblocks' item, run once for every language's copy of the block; a failed command reports its
    output (pytest-codeblocks' own report is only the exit status)."""

    def runtest(self):
        if self.obj.importorskip is not None:
            pytest.importorskip(self.obj.importorskip)
        key = behaviour_key(self.obj.syntax, self.obj.code)
        if key not in _passed_runs:
            _passed_runs[key] = self._run(key)
        (got, warned), expected = _passed_runs[key], self.obj.expected_output
        squeeze = (lambda t: re.sub(r"\s+", "", t)) if self.obj.expected_output_ignore_whitespace else str
        if expected is not None and squeeze(got) != squeeze(expected):
            raise RuntimeError(f"{self.name}, line {self.obj.lineno}: expected output\n{expected}\nbut got\n{got}")
        block: PageBlock = self.block
        # every warning of the run, counted or not, for a report (--junitxml writes them)
        self.user_properties.extend(("warning", f"{'counted' if counts(w) else 'not counted'}: {w}") for w in warned)
        if missing := unexplained(page_lines(block.page), block.raw.lineno, self.next_fence_line, list(warned)):
            raise RuntimeError(report(f"{block.page.parent.name}/{block.page.name} {block.label}", missing))

    def _run(self, key: tuple[str, str]) -> tuple[str, tuple[Warned, ...]]:
        """What the block prints, as pytest-codeblocks runs it (exec in this process, or a shell), and the warnings
        it raised (block_warnings: recorded, or for a shell's programs as their standard error shows them)."""
        if (snippet := programs().get(key)) is not None:  # the whole file, run as a program: read that run
            run = run_snippet(snippet).result(timeout=600)
            if run.returncode:
                raise RuntimeError(f"{self.name}: {run.command} exited with status {run.returncode}\n"
                                   f"{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
            return run.stdout, run.warnings
        if self.obj.syntax != "python":
            if key not in _started:  # this one, and the shell blocks further down the page that will run
                later = self.session.items[self.session.items.index(self) + 1 :]
                siblings = [i.obj for i in later if i.parent is self.parent and not i.get_closest_marker("skip")]
                for block in [self.obj, *siblings]:
                    k = behaviour_key(block.syntax, block.code)
                    if k[0] != "python" and k not in _passed_runs and k not in _started:
                        _started[k] = start_command(block)
            process = _started.pop(key)
            stdout, stderr = process.communicate(timeout=600)
            if process.returncode:
                output = f"{stdout[-3000:]}\n{stderr[-3000:]}"
                raise RuntimeError(f"{self.name}: command exited with status {process.returncode}\n{output}")
            return stdout, tuple(from_stderr(stderr))
        with stdout_io() as out, recording() as warned:
            try:
                exec(self.obj.code, {"__MODULE__": "__main__"})
            except Exception as error:
                raise RuntimeError(f"{self.name}, line {self.obj.lineno}:\n{self.obj.code}\n{error!r}") from error
        return out.getvalue(), tuple(warned)


class ExpandedPage(pytest.File):
    def collect(self):
        runnable = [block for block in page_blocks(self.path) if block.expanded.syntax in RUN_SYNTAXES]
        for block, following in zip(runnable, [*runnable[1:], None][: len(runnable)], strict=True):
            item = PageBlockItem.from_parent(parent=self, name=block.label)
            item.obj = block.expanded
            item.block, item.next_fence_line = block, following.raw.lineno if following else None
            for mark in block.marks:
                item.add_marker(eval(mark, {"sys": sys, "pytest": pytest}))  # as pytest-codeblocks does
            yield item


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch):
    monkeypatch.chdir(REPO)  # pages show commands relative to the repository root


def pytest_collection_modifyitems(config, items):
    for item in items:
        if reason := skip_reason([m.name for m in item.iter_markers()], cuda_device_count()):
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_unconfigure(config):
    for process in _started.values():  # started for blocks that a stopped run never reached
        process.kill()


def pytest_terminal_summary(terminalreporter):
    reasons = [r.longrepr[2] for r in terminalreporter.stats.get("skipped", []) if isinstance(r.longrepr, tuple)]
    terminalreporter.write_sep("=", "GPU-dependent checks")
    for mark in BLOCK_MARKS.values():
        terminalreporter.write_line(f"skipped, {mark.skip_reason}: {sum(mark.skip_reason in r for r in reasons)}")
    terminalreporter.write_line(f"CUDA GPUs visible to this run: {cuda_device_count()}")
