"""The notebook pages in Chromium, as a reader meets them: rendered cells and outputs in both colour schemes, the
download, and "Open in Colab" leading to the committed notebook (on a site built with a GitHub repository)."""

from __future__ import annotations

import functools
import threading

import nbformat
import pytest

from browser import PALETTE_TOGGLE, Recorder, _QuietHandler, _QuietServer
from notebooks import colab_url, kaggle_url, notebook_path
from site_pages import DOCS, LANGUAGES
from test_notebooks import ONE_REPO, build_one_notebook_site

pytest_plugins = ["browser"]


def _prefix(lang: str) -> str:
    return "" if lang == LANGUAGES[0] else f"{lang}/"


def _first_output(path) -> str:
    nb = nbformat.read(path, as_version=4)
    return next(o.text for c in nb.cells for o in c.get("outputs", []) if o.output_type == "stream")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_notebook_page_shows_cells_outputs_and_its_download(new_context, origin, lang):
    committed = notebook_path(DOCS / lang / "mnist.md")
    context = new_context()
    page = context.new_page()
    rec = Recorder(page)
    page.goto(f"{origin}/{_prefix(lang)}notebooks/mnist/", wait_until="load")
    assert page.evaluate("document.documentElement.lang") == lang
    heading = nbformat.read(committed, as_version=4).cells[0].source.removeprefix("# ")
    assert page.locator(".jp-MarkdownCell h1").first.inner_text().rstrip("¶").strip() == heading
    prose = page.locator(".jp-MarkdownCell h2").first
    code = page.locator(".jp-CodeCell .highlight-ipynb pre").first
    editor = page.locator(".jp-CodeCell .jp-InputArea-editor").first
    output = page.locator(".jp-OutputArea-output pre").filter(has_text=_first_output(committed).splitlines()[0]).first
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
    assert response.ok and response.text() == committed.read_text(encoding="utf-8")
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
def test_open_in_colab_and_kaggle_lead_to_the_committed_notebook(new_context, one_notebook_origin, lang):
    context = new_context()
    page = context.new_page()
    page.goto(f"{one_notebook_origin}/{_prefix(lang)}notebooks/demo/", wait_until="load")
    assert page.locator(".jp-OutputArea-output pre").first.inner_text().strip() == "42"
    colab = page.locator("a.notebook-colab")
    assert colab.is_visible()
    assert colab.get_attribute("href") == colab_url(ONE_REPO, f"docs/{lang}/notebooks/demo.ipynb")
    kaggle = page.locator("a.notebook-kaggle")
    assert kaggle.is_visible()
    assert kaggle.get_attribute("href") == kaggle_url(ONE_REPO, f"docs/{lang}/notebooks/demo.ipynb")
    page.goto(f"{one_notebook_origin}/{_prefix(lang)}demo/", wait_until="load")  # and on the page it is made from
    assert page.locator("a.notebook-colab").get_attribute("href") == colab_url(
        ONE_REPO, f"docs/{lang}/notebooks/demo.ipynb")
    context.close()
