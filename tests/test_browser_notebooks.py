"""The notebook pages in Chromium, as a reader meets them: rendered cells and outputs in both colour schemes, code
that fits its column on a phone and on a laptop, the download, and "Open in Colab" leading to the notebook the deploy
publishes (on a site built with a GitHub repository)."""

from __future__ import annotations

import functools
import threading

import nbformat
import pytest

from browser import DESKTOP, PALETTE_TOGGLE, Recorder, _QuietHandler, _QuietServer
from notebooks import colab_url, kaggle_url
from site_pages import DOCS, LANGUAGES
from test_notebooks import IDS, ONE_REPO, PAGES, _site_path, build_one_notebook_site

pytest_plugins = ["browser"]


def _prefix(lang: str) -> str:
    return "" if lang == LANGUAGES[0] else f"{lang}/"


def _first_output(path) -> str:
    nb = nbformat.read(path, as_version=4)
    return next(o.text for c in nb.cells for o in c.get("outputs", []) if o.output_type == "stream")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_notebook_page_shows_cells_outputs_and_its_download(new_context, origin, built_site, lang):
    built = built_site / _site_path(DOCS / lang / "mnist.md")
    context = new_context()
    page = context.new_page()
    rec = Recorder(page)
    page.goto(f"{origin}/{_prefix(lang)}notebooks/mnist/", wait_until="load")
    assert page.evaluate("document.documentElement.lang") == lang
    heading = nbformat.read(built, as_version=4).cells[0].source.removeprefix("# ")
    assert page.locator(".jp-MarkdownCell h1").first.inner_text().rstrip("¶").strip() == heading
    prose = page.locator(".jp-MarkdownCell h2").first
    code = page.locator(".jp-CodeCell .highlight-ipynb pre").first
    editor = page.locator(".jp-CodeCell .jp-InputArea-editor").first
    output = page.locator(".jp-OutputArea-output pre").filter(has_text=_first_output(built).splitlines()[0]).first
    for shown in (prose, code, output):
        assert shown.is_visible()
    assert "import torch" in code.inner_text()

    # the notebook's code follows the site's colour scheme, as the pages' code does
    background = "el => getComputedStyle(el).backgroundColor"
    light = editor.evaluate(background)
    page.locator(PALETTE_TOGGLE).click()
    page.wait_for_function("document.body.getAttribute('data-md-color-scheme') === 'slate'")
    page.wait_for_timeout(400)  # Material's colour transition
    assert editor.evaluate(background) != light

    download = page.locator("a.notebook-download")
    response = page.request.get(download.evaluate("a => a.href"))
    assert response.ok and response.text() == built.read_text(encoding="utf-8")
    # built without a repository (REPO_URL unset)
    assert page.locator("a.notebook-colab, a.notebook-kaggle").count() == 0
    assert rec.unexpected_errors(page) == []
    context.close()


@pytest.fixture(scope="module")
def one_notebook_origin(tmp_path_factory):
    """The one-notebook bilingual site of test_notebooks, built with a GitHub repository, served on localhost."""
    site = build_one_notebook_site(tmp_path_factory.mktemp("one-notebook"), ONE_REPO)
    server = _QuietServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, name="one-notebook-server", daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_open_in_colab_and_kaggle_lead_to_the_published_notebook(new_context, one_notebook_origin, lang):
    context = new_context()
    page = context.new_page()
    page.goto(f"{one_notebook_origin}/{_prefix(lang)}notebooks/demo/", wait_until="load")
    assert page.locator(".jp-OutputArea-output pre").first.inner_text().strip() == "42"
    colab = page.locator("a.notebook-colab")
    assert colab.is_visible()
    assert colab.get_attribute("href") == colab_url(ONE_REPO, f"{_prefix(lang)}notebooks/demo/demo.ipynb")
    kaggle = page.locator("a.notebook-kaggle")
    assert kaggle.is_visible()
    assert kaggle.get_attribute("href") == kaggle_url(ONE_REPO, f"{_prefix(lang)}notebooks/demo/demo.ipynb")
    page.goto(f"{one_notebook_origin}/{_prefix(lang)}demo/", wait_until="load")  # and on the page it is made from
    assert page.locator("a.notebook-colab").get_attribute("href") == colab_url(
        ONE_REPO, f"{_prefix(lang)}notebooks/demo/demo.ipynb")
    context.close()


# ----------------------------------------------------------------- code that fits its column (issue 51, item 4)

PHONE = {"width": 390, "height": 844}
MIN_PHONE_COLUMN = 340  # px of code on a 390 px phone: the column a page's code gets, less a few px
MAX_SCROLLING = 0.10  # of the code cells of a language's notebook pages, at DESKTOP's width
# JS: each code cell's code column (its <pre>, padding included, as a page's code block is measured) and whether it
# scrolls sideways, once the fonts are in
CODE_CELLS_JS = """
async () => {
  await document.fonts.ready;
  return [...document.querySelectorAll(".md-content .jupyter-wrapper .jp-CodeCell .highlight-ipynb > pre")]
    .map(pre => [pre.clientWidth, pre.scrollWidth > pre.clientWidth + 1]);
}
"""


@pytest.fixture(scope="module")
def code_cells(new_context, origin):
    """Every notebook page's code cells at a phone's width and at DESKTOP's: {(width, page): [(px, scrolls)]}."""
    found = {}
    for viewport in (PHONE, DESKTOP):
        context = new_context(viewport=viewport)
        tab = context.new_page()
        for page, name in zip(PAGES, IDS, strict=True):
            tab.goto(f"{origin}/{_site_path(page).rpartition('/')[0]}/", wait_until="load")
            found[viewport["width"], name] = tab.evaluate(CODE_CELLS_JS)
        context.close()
    return found


def test_a_phone_gives_notebook_code_the_pages_width(code_cells):
    narrow = {name: min(px for px, _ in cells) for (width, name), cells in code_cells.items()
              if width == PHONE["width"] and cells and min(px for px, _ in cells) < MIN_PHONE_COLUMN}
    assert all(code_cells[PHONE["width"], name] for name in IDS), "a notebook page without code cells"
    assert not narrow, f"code columns under {MIN_PHONE_COLUMN} px at {PHONE['width']} px: {narrow}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_few_notebook_cells_scroll_sideways_on_a_laptop(code_cells, lang):
    cells = [cell for (width, name), found in code_cells.items() if width == DESKTOP["width"]
             and name.startswith(f"{lang}/") for cell in found]
    scrolling = sum(scrolls for _, scrolls in cells)
    print(f"{lang}: {scrolling} of {len(cells)} code cells scroll sideways at {DESKTOP['width']} px")
    assert len(cells) > 100 and scrolling <= MAX_SCROLLING * len(cells), f"{scrolling} of {len(cells)} cells scroll"
