"""Every snippet module runs on its own, as a reader who copied it would run it: here, unless a page's bash
block already runs it as a program in each language."""

from __future__ import annotations

import pytest

from codeblocks_plugin import snippets_needing_gpu, snippets_run_by_pages
from site_pages import REPO, SNIPPETS
from snippet_runs import run_snippet

SNIPPET_FILES = [rel for p in sorted(SNIPPETS.rglob("*.py"))
                 if (rel := p.relative_to(REPO).as_posix()) not in snippets_run_by_pages()]


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
