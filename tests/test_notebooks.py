"""The notebook of every page with code: offered for download, in its language, and it runs."""

from __future__ import annotations

import re

import nbformat
import pytest
from mkdocs.utils.meta import get_data
from nbclient import NotebookClient

from codeblocks_plugin import SKIP_REASONS, cuda_device_count
from docs_pages import DOCS, LANGUAGES, REPO, page_blocks, pages
from notebooks import CELL_TAGS
from page_source import RUN_SYNTAXES

# tag -> (GPUs needed, reason), as for the page blocks
NEEDS = {CELL_TAGS[mark]: (gpus, SKIP_REASONS[mark][1]) for mark, gpus in (("cuda", 1), ("multi_gpu", 2))}


def _pages_with_code():
    for lang in LANGUAGES:
        for page in pages(lang):
            if any(b.raw.syntax in RUN_SYNTAXES for b in page_blocks(page)):
                yield pytest.param(lang, page.stem, id=f"{lang}/{page.stem}")


PAGES_WITH_CODE = list(_pages_with_code())


def _notebook_path(site, lang, stem):
    return site / ("" if lang == LANGUAGES[0] else lang) / "notebooks" / f"{stem}.ipynb"


@pytest.mark.parametrize(("lang", "stem"), PAGES_WITH_CODE)
def test_page_offers_its_notebook(built_site, lang, stem):
    page_dir = built_site / ("" if lang == LANGUAGES[0] else lang) / ("" if stem == "index" else stem)
    html = (page_dir / "index.html").read_text(encoding="utf-8")
    m = re.search(r'<a class="md-button notebook-download" href="([^"]+)" download>', html)
    assert m, "no notebook download link"
    target = (page_dir / m.group(1)).resolve()
    assert target == _notebook_path(built_site, lang, stem).resolve()
    assert target.is_file()


@pytest.mark.parametrize(("lang", "stem"), PAGES_WITH_CODE)
def test_notebook_matches_its_page_and_runs(built_site, lang, stem, record_property):
    nb = nbformat.read(_notebook_path(built_site, lang, stem), as_version=4)
    page_text, _ = get_data((DOCS / lang / f"{stem}.md").read_text(encoding="utf-8"))
    heading = page_text.splitlines()[0].lstrip("# ").strip()
    assert nb.cells[0].source.startswith(f"# {heading}"), "notebook is not in the page's language"
    expected_code = [b.expanded.code.rstrip("\n") for b in page_blocks(DOCS / lang / f"{stem}.md")
                     if b.raw.syntax in RUN_SYNTAXES]
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source.removeprefix("%%bash\n").rstrip("\n") for c in code_cells] == expected_code

    gpus = cuda_device_count()
    skipped = 0
    for cell in code_cells:
        for tag in cell.metadata.get("tags", []):
            if tag in NEEDS and gpus < NEEDS[tag][0]:
                cell.source = f"# skipped in this run: {NEEDS[tag][1]}"
                skipped += 1
    record_property("cells skipped for want of a GPU", skipped)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(REPO)}}).execute()
