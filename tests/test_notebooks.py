"""The notebook of every page with code: offered for download, in its language, and holding the page's code.

The notebooks are not run here: every code cell is a page block, which the page tests already run once per
language; these tests check that the cells are exactly those blocks, in order, with the page's prose between.
"""

from __future__ import annotations

import re
from html import escape

import nbformat
import pytest
from mkdocs.utils.meta import get_data

from codeblocks_plugin import page_blocks
from notebooks import page_notebook
from site_pages import BLOCK_MARKS, DOCS, LANGUAGES, RUN_SYNTAXES, load_text, pages

WORDS = load_text("notebooks")


def _pages_with_code():
    for lang in LANGUAGES:
        for page in pages(lang):
            if any(b.raw.syntax in RUN_SYNTAXES for b in page_blocks(page.path)):
                yield pytest.param(lang, page.stem, id=f"{lang}/{page.stem}")


PAGES_WITH_CODE = list(_pages_with_code())


def _notebook_path(site, lang, stem):
    return site / ("" if lang == LANGUAGES[0] else lang) / "notebooks" / f"{stem}.ipynb"


def test_a_page_makes_the_same_notebook_on_every_build():
    made = [nbformat.writes(page_notebook(DOCS / "zh" / "mnist.md", "zh", WORDS["zh"]["intro"])) for _ in range(2)]
    assert made[0] == made[1]


def test_every_language_has_the_notebook_words():
    assert all(set(WORDS[lang]) == {"download", "intro"} for lang in LANGUAGES)


@pytest.mark.parametrize(("lang", "stem"), PAGES_WITH_CODE)
def test_page_offers_its_notebook(built_site, lang, stem):
    page_dir = built_site / ("" if lang == LANGUAGES[0] else lang) / ("" if stem == "index" else stem)
    html = (page_dir / "index.html").read_text(encoding="utf-8")
    words = re.escape(escape(WORDS[lang]["download"]))
    m = re.search(rf'<a class="md-button notebook-download" href="([^"]+)" download>{words}</a>', html)
    assert m, "no notebook download link in the page's language"
    target = (page_dir / m.group(1)).resolve()
    assert target == _notebook_path(built_site, lang, stem).resolve()
    assert target.is_file()


def test_the_nav_entry_leads_to_the_mnist_notebook_in_each_language(built_site):
    for lang in LANGUAGES:
        page_dir = built_site / ("" if lang == LANGUAGES[0] else lang) / "devices"
        html = (page_dir / "index.html").read_text(encoding="utf-8")
        hrefs = re.findall(r'<a href="([^"]+\.ipynb)" class="md-nav__link">', html)
        assert [(page_dir / h).resolve() for h in hrefs] == [_notebook_path(built_site, lang, "mnist").resolve()]


def _sections(texts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Each `## ` heading in (code cells or runnable fences above it, text) pairs, with that number."""
    return [(above, line) for above, text in texts for line in text.splitlines() if line.startswith("## ")]


@pytest.mark.parametrize(("lang", "stem"), PAGES_WITH_CODE)
def test_notebook_holds_the_pages_code_and_prose(built_site, lang, stem):
    nb = nbformat.read(_notebook_path(built_site, lang, stem), as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3" and nb.metadata.kernelspec.language == "python"
    page = DOCS / lang / f"{stem}.md"
    heading = get_data(page.read_text(encoding="utf-8"))[0].splitlines()[0].lstrip("# ").strip()
    assert nb.cells[0].source.startswith(f"# {heading}"), "notebook is not in the page's language"
    assert nb.cells[1].source == WORDS[lang]["intro"].format(title=heading)

    # the code cells are the page's code blocks as they run (includes expanded, comments in lang), in order
    # (the titled parts of a file shown piece by piece, `python title="..."`, are code cells too)
    blocks = [b for b in page_blocks(page) if b.raw.syntax.split(" ", 1)[0] in RUN_SYNTAXES]
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source.removeprefix("%%bash\n").rstrip("\n") for c in code_cells] == [
        b.expanded.code.rstrip("\n") for b in blocks
    ]
    marks = [{m.removeprefix("pytest.mark.") for m in b.marks} for b in blocks]
    assert [c.metadata.get("tags", []) for c in code_cells] == [
        sorted(BLOCK_MARKS[m].notebook_tag for m in ms if m in BLOCK_MARKS) for ms in marks
    ]

    # the prose between them: every section heading sits between the same two blocks as on the page
    lines = page.read_text(encoding="utf-8").splitlines()
    on_page = [(sum(b.raw.lineno < n for b in blocks), line) for n, line in enumerate(lines, 1)]
    in_notebook, above = [], 0
    for cell in nb.cells:
        above += cell.cell_type == "code"
        in_notebook += [(above, cell.source)] if cell.cell_type == "markdown" else []
    assert _sections(in_notebook) == _sections(on_page)
    assert len(_sections(on_page)) >= 1
