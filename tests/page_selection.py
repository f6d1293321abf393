"""`pytest --page <page>` (`make test-page PAGE=<page>`): what one page can break, and nothing else.

Kept: the page's blocks in both languages, its own tests (tests/test_<page>.py, tests/<page>/), every test
parametrized over pages or snippets for this page, and the checks marked `every_page` (they read every page, so a
new page can fail them). Left out, and named at the end: the other pages' tests and the site's own machinery, which
only `make test` runs."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from site_pages import DOCS, INCLUDE, LANGUAGES, REPO


def pytest_addoption(parser):
    parser.addoption("--page", metavar="PAGE", help="only what the page docs/en/PAGE.md can break")


def _mentions(text: str, names) -> set[str]:
    # a page name is whole: "ddp" is not in "ddp-training", "en/ddp.md" or "[ddp]" are
    return {n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)}


def _snippet_pages() -> dict[str, set[str]]:
    """Each included snippet file -> the pages that show it."""
    shown: dict[str, set[str]] = {}
    for path in (DOCS / LANGUAGES[0]).glob("*.md"):
        for include in INCLUDE.findall(path.read_text(encoding="utf-8")):
            shown.setdefault(include.split(":", 1)[0], set()).add(path.stem)
    return shown


def _pages_of(item, names, snippet_pages) -> set[str] | None:
    """The pages an item belongs to, or None for a test that is about no page in particular."""
    rel = Path(str(item.path)).resolve().relative_to(REPO)
    if rel.parts[0] == "docs":
        return {rel.stem}
    own = rel.stem.removeprefix("test_") if rel.parent == Path("tests") else rel.parts[1]
    if own.replace("_", "-") in names:
        return {own.replace("_", "-")}
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    found = _mentions(callspec.id, names)
    for snippet, shown_on in snippet_pages.items():
        folder = snippet.split("/")[1]  # a snippet folder's data: docs/data/comments/zh/<folder>.yml
        if snippet in callspec.id or callspec.id in (folder, f"{folder}.yml"):
            found |= shown_on
    return found or None


def pytest_collection_modifyitems(config, items):
    page = config.getoption("page")
    if not page:
        return
    names = {p.stem for p in (DOCS / LANGUAGES[0]).glob("*.md")}
    if page not in names:
        raise pytest.UsageError(f"--page {page}: there is no docs/{LANGUAGES[0]}/{page}.md")
    snippet_pages = _snippet_pages()
    kept, dropped, left = [], [], Counter()
    for item in items:
        of = _pages_of(item, names, snippet_pages)
        if (page in of) if of else item.get_closest_marker("every_page") is not None:
            kept.append(item)
        else:
            dropped.append(item)
            left["other pages" if of else item.nodeid.split("::")[0]] += 1
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept
    config.pluginmanager.register(_Summary(page, left), "page_selection_summary")


class _Summary:
    def __init__(self, page: str, left: Counter):
        self.page, self.left = page, left

    def pytest_terminal_summary(self, terminalreporter):
        terminalreporter.section(f"not checked by --page {self.page}: only `make test` runs these")
        for where, count in sorted(self.left.items()):
            terminalreporter.write_line(f"{count:5} {where}")
