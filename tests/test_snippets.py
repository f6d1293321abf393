"""Every snippet module runs on its own, as a reader who copied it would run it: here, unless a page's bash
block already runs it as a program in each language."""

from __future__ import annotations

import re

import pytest

from codeblocks_plugin import page_blocks
from site_pages import REPO, SNIPPETS, pages
from snippet_runs import run_snippet


def snippets_needing_gpu() -> dict[str, set[str]]:
    """Snippet path -> GPU marks of the page blocks that include it (the page is the source of truth)."""
    needs: dict[str, set[str]] = {}
    for page in pages():
        for block in page_blocks(page.path):
            marks = {m.removeprefix("pytest.mark.") for m in block.marks} & {"cuda", "multi_gpu"}
            for include in block.includes:
                needs.setdefault(include.split(":", 1)[0], set()).update(marks)
    return needs


def snippets_run_by_pages() -> set[str]:
    """Snippet files that a page's bash block runs as a program (`python snippets/x.py ...`), in each language."""
    return {path for page in pages() for block in page_blocks(page.path) if block.raw.syntax in {"bash", "sh"}
            for path in re.findall(r"\bsnippets/[\w/]+\.py\b", block.raw.code)}


RUN_BY_PAGES = snippets_run_by_pages()
SNIPPET_FILES = [rel for p in sorted(SNIPPETS.rglob("*.py"))
                 if (rel := p.relative_to(REPO).as_posix()) not in RUN_BY_PAGES]


def _params():
    needs = snippets_needing_gpu()
    for snippet in SNIPPET_FILES:
        yield pytest.param(snippet, marks=[getattr(pytest.mark, m) for m in sorted(needs.get(snippet, ()))],
                           id=snippet)


@pytest.fixture(scope="module")
def _started(request):
    """Start every runnable snippet at once, two at a time in the background; each test waits for its own."""
    runnable = [item.callspec.params["snippet"] for item in request.session.items
                if getattr(item, "module", None) is request.module and not item.get_closest_marker("skip")]
    for snippet in runnable:
        run_snippet(snippet)


@pytest.mark.parametrize("snippet", list(_params()))
def test_snippet_runs_as_a_script(_started, snippet):
    run = run_snippet(snippet).result(timeout=600)
    assert run.returncode == 0, f"{run.command}\n{run.stdout[-2000:]}\n{run.stderr[-4000:]}"
