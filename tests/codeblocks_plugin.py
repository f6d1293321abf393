"""pytest plugin: every runnable fence of every page is a test, read by pytest-codeblocks and run as it runs them.

Glue because pytest-codeblocks reads raw Markdown while the pages hold only `--8<--` includes: each page is
expanded first (site_pages.expand_includes, comments in the page's language). Each piece of code runs once per test
run: a block that the languages show with the same code (their copies differ in comments and translated docstrings
only) runs once, and a block that shows a whole snippet file reads that file's one run as a program
(snippet_runs.run_snippet), which test_snippets.py checks too. GPU marks become skips with a reason, counted at the
end of the run.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_codeblocks import CodeBlock
from pytest_codeblocks.main import stdout_io
from pytest_codeblocks.plugin import TestBlock

import run_share
from block_warnings import Warned, counts, from_stderr, recording, report, unexplained
from mnist_data import ensure_local_mnist
from site_pages import (  # noqa: F401  (PageBlock, page_blocks, behaviour_key: the tests read them from here too)
    BLOCK_MARKS,
    DOCS,
    LANGUAGES,
    REPO,
    RUN_SYNTAXES,
    SNIPPETS,
    PageBlock,
    behaviour_key,
    block_digest,
    page_blocks,
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


@functools.cache
def page_lines(page: Path) -> list[str]:
    return page.read_text(encoding="utf-8").splitlines()


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


# a block's output and the warnings it raised, by its digest (site_pages.block_digest): the languages' copies of one
# block differ only in comments and docstrings, so the first to run does so for all
_passed_runs: dict[str, tuple[str, tuple[Warned, ...]]] = {}
# a page's shell blocks, started together when the first of them runs: each is a program that spends seconds
# importing torch while the others wait, and none reads what another writes
_started: dict[str, subprocess.Popen] = {}


def snippets_run_by_pages() -> set[str]:
    """Snippet files that a page's bash block runs as a program (`python snippets/x.py ...`), in each language."""
    return {path for page in pages() for block in page_blocks(page.path) if block.raw.syntax in {"bash", "sh"}
            for path in re.findall(r"\bsnippets/[\w/]+\.py\b", block.raw.code)}


@functools.cache
def programs() -> dict[str, str]:
    """block digest -> snippet file, for every snippet that test_snippets.py runs as a program (those no page's bash
    block runs): a page block that shows such a whole file reads that one run instead of running again."""
    run_by_pages = snippets_run_by_pages()
    found = {}
    for path in sorted(SNIPPETS.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel not in run_by_pages:
            found[block_digest("python", path.read_text(encoding="utf-8"))] = rel
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
        key = block_digest(self.obj.syntax, self.obj.code)
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

    def _run(self, key: str) -> tuple[str, tuple[Warned, ...]]:
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
                    k = block_digest(block.syntax, block.code)
                    if block.syntax != "python" and k not in _passed_runs and k not in _started:
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
