"""The notebook of every page with code (docs/hooks/notebooks.py), as the build makes it: holding the page's code,
prose and shown outputs in its language, offered on the page for download and Colab, rendered as a page of its
language by mkdocs-jupyter, in the nav, and its opening cells run in a Jupyter kernel with nbclient.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from html import escape, unescape
from pathlib import Path

import nbformat
import pytest
import yaml
from mkdocs.utils.meta import get_data
from nbclient import NotebookClient

import notebooks
import search_index
from codeblocks_plugin import behaviour_key, cuda_device_count, page_blocks
from notebooks import (
    BRANCH,
    COLAB_GPU,
    DEVICE_TAG,
    SCRIPTS_TAG,
    colab_url,
    intro,
    kaggle_url,
    page_notebook,
    pages_with_code,
    plain_title,
)
from site_build import mkdocs_build
from site_pages import BLOCK_MARKS, DOCS, LANGUAGES, REPO, RUN_SYNTAXES, load_text, settings

WORDS = load_text("notebooks")
PAGES = pages_with_code()
IDS = [f"{p.parent.name}/{p.stem}" for p in PAGES]


def _served(site: Path, lang: str, path: str) -> Path:
    return site / ("" if lang == LANGUAGES[0] else lang) / path


def _notebook_page(site: Path, page: Path) -> Path:
    """Where the built site serves a page's notebook as a page."""
    name = "" if page.stem == "index" else f"{page.stem}/"
    return _served(site, page.parent.name, f"notebooks/{name}index.html")


def _site_path(page: Path) -> str:
    """Where the built site serves a page's notebook (beside its notebook page), e.g. zh/notebooks/ddp/ddp.ipynb: the
    deploy publishes it at the same path on the notebooks branch."""
    lang = page.parent.name
    folder = "notebooks" if page.stem == "index" else f"notebooks/{page.stem}"
    return ("" if lang == LANGUAGES[0] else f"{lang}/") + f"{folder}/{page.stem}.ipynb"


def _built(site: Path, page: Path) -> nbformat.NotebookNode:
    return nbformat.read(site / _site_path(page), as_version=4)


def _made(page: Path) -> str:
    """The page's notebook as the build writes it from the page as it is now."""
    return nbformat.writes(page_notebook(page, page.parent.name, WORDS[page.parent.name])) + "\n"


def _stdout(cell) -> str:
    return "".join(o.text for o in cell.get("outputs", []) if o.output_type == "stream" and o.name == "stdout")


# ------------------------------------------------------------------------- the notebooks the build made


def test_the_build_made_the_notebook_of_every_page_with_code_and_no_other(built_site):
    assert sorted(p.relative_to(built_site).as_posix() for p in built_site.rglob("*.ipynb")) == sorted(
        _site_path(p) for p in PAGES)
    assert {p.parent.name for p in PAGES} == set(LANGUAGES)


def test_a_page_makes_the_same_notebook_every_time():
    made = [nbformat.writes(page_notebook(DOCS / "zh" / "mnist.md", "zh", WORDS["zh"])) for _ in range(2)]
    assert made[0] == made[1]


def test_every_language_has_the_notebook_words():
    keys = {"view", "download", "colab", "kaggle", "intro", "gpu_found", "no_gpu", "no_multi_gpu", "scripts",
            "placeholder", "page_title", "cell_tags"}
    assert all(set(WORDS[lang]) == keys for lang in LANGUAGES)
    # the intro names the labels a notebook page shows, not the tags' ids
    for lang in LANGUAGES:
        text = intro(WORDS[lang], "T")
        assert all(f"“{WORDS[lang]['cell_tags'][tag]}”" in text for tag in ("needs-cuda", "needs-multi-gpu")), lang
        assert not any(tag in text for tag in WORDS[lang]["cell_tags"]), lang
    # a notebook page shows each cell tag in its reader's words (notebooks.tag_labels), every tag a page's
    # marks give (site_pages.BLOCK_MARKS)
    tags = {mark.notebook_tag for mark in BLOCK_MARKS.values()}
    assert all(set(WORDS[lang]["cell_tags"]) == tags for lang in LANGUAGES)


def test_the_page_hides_the_cells_that_write_the_scripts_and_the_prompts():
    jupyter = next(p["mkdocs-jupyter"] for p in settings()["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p)
    assert jupyter["remove_tag_config"]["remove_cell_tags"] == [SCRIPTS_TAG]
    assert jupyter["include_source"] is True and jupyter["cache"] is False and jupyter["no_prompt"] is True


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_notebook_holds_the_pages_code_prose_and_outputs(built_site, page):
    lang = page.parent.name
    nb = _built(built_site, page)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3" and nb.metadata.kernelspec.language == "python"
    assert {k: nb.metadata[k] for k in COLAB_GPU} == COLAB_GPU, "the notebook does not ask Colab for a GPU"
    heading = get_data(page.read_text(encoding="utf-8"))[0].splitlines()[0]
    assert nb.cells[0].source == heading, "the notebook does not open with the page's heading"
    assert nb.cells[1].source == intro(WORDS[lang], heading.removeprefix("# "))
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert first_code is nb.cells[2] and first_code.metadata["tags"] == [DEVICE_TAG]

    # the code cells are the page's code fences as they run (includes expanded, comments in lang), in order, each
    # with the output the page shows after it
    blocks = [b for b in page_blocks(page) if b.raw.syntax.split(" ", 1)[0] in RUN_SYNTAXES]
    opening = {DEVICE_TAG, SCRIPTS_TAG}
    cells = [c for c in nb.cells if c.cell_type == "code" and not opening & set(c.metadata.get("tags", []))]
    assert [c.source.removeprefix("%%bash\n").rstrip("\n") for c in cells] == [
        b.expanded.code.rstrip("\n") for b in blocks
    ]
    assert [_stdout(c) or None for c in cells] == [b.expanded.expected_output for b in blocks]
    marks = [{m.removeprefix("pytest.mark.") for m in b.marks} for b in blocks]
    assert [c.metadata.get("tags", []) for c in cells] == [
        sorted(BLOCK_MARKS[m].notebook_tag for m in ms if m in BLOCK_MARKS) for ms in marks
    ]

    # the prose between them: every section heading sits between the same two blocks as on the page, and reads as
    # Jupyter shows it (no attribute list, no test marker)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert not re.search(r"\{\s*[#.:]|<!--", markdown), "page-only Markdown in the notebook"

    def headings(lines_above: list[tuple[int, str]]) -> list[tuple[int, str]]:
        return [(above, re.sub(r"\s*\{.*\}$", "", line)) for above, text in lines_above
                for line in text.splitlines() if line.startswith("## ")]

    lines = page.read_text(encoding="utf-8").splitlines()
    on_page = [(sum(b.raw.lineno < n for b in blocks), line) for n, line in enumerate(lines, 1)]
    in_notebook, above = [], 0
    for cell in nb.cells:
        above += cell in cells
        in_notebook += [(above, cell.source)] if cell.cell_type == "markdown" else []
    assert headings(in_notebook) == headings(on_page)
    # not vacuous where the page has sections (a one-section page may have no H2)
    assert headings(on_page) or not any(line.startswith("## ") for line in lines)


def test_the_notebook_writes_the_scripts_its_shell_cells_run(built_site):
    nb = _built(built_site, DOCS / "en" / "mnist.md")
    written = [c for c in nb.cells if SCRIPTS_TAG in c.metadata.get("tags", []) and c.cell_type == "code"]
    assert len(written) == 1
    train = "snippets/mnist/train.py"
    assert _scripts_literal(written[0].source) == {train: (REPO / train).read_text(encoding="utf-8")}


@pytest.mark.parametrize(("repo", "url"), [
    ("https://github.com/example/site", "https://colab.research.google.com/github/example/site/blob/notebooks/zh/notebooks/x/x.ipynb"),
    ("https://github.com/example/site.git", "https://colab.research.google.com/github/example/site/blob/notebooks/zh/notebooks/x/x.ipynb"),
    ("https://gitlab.com/example/site", None),  # Colab opens notebooks from GitHub only
    (None, None),  # a local build: no repository, no Colab link
])
def test_colab_opens_the_published_notebook_of_a_github_repository(repo, url):
    assert colab_url(repo, "zh/notebooks/x/x.ipynb") == url


@pytest.mark.parametrize(("repo", "url"), [
    ("https://github.com/example/site",
     "https://kaggle.com/kernels/welcome?src=https://github.com/example/site/blob/notebooks/zh/notebooks/x/x.ipynb"),
    ("https://github.com/example/site.git/",
     "https://kaggle.com/kernels/welcome?src=https://github.com/example/site/blob/notebooks/zh/notebooks/x/x.ipynb"),
    ("https://gitlab.com/example/site", None),  # the link opens the notebook's GitHub address
    (None, None),
])
def test_kaggle_opens_the_published_notebook_of_a_github_repository(repo, url):
    assert kaggle_url(repo, "zh/notebooks/x/x.ipynb") == url


def test_the_deploy_publishes_the_built_notebooks_where_colab_opens_them():
    """The deploy workflow uploads the site's .ipynb files at their paths in the site and pushes them to BRANCH, the
    branch colab_url and kaggle_url name."""
    workflow = yaml.safe_load((REPO / ".github/workflows/docs.yml").read_text(encoding="utf-8"))
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    uploads = [s["with"] for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert [u["path"] for u in uploads] == ["site/**/*.ipynb"]
    push = next(s["run"] for s in steps if "git push" in s.get("run", ""))
    assert f"HEAD:refs/heads/{BRANCH}" in push


# ---------------------------------------------------------------------------------------------- the built site


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_page_links_its_notebook_page_and_download(built_site, page):
    lang = page.parent.name
    served = _served(built_site, lang, "" if page.stem == "index" else f"{page.stem}/") / "index.html"
    html = served.read_text(encoding="utf-8")
    links = re.search(r'<p class="notebook-links">(.*?)</p>', html)
    assert links, "no notebook links on the page"
    found = dict(re.findall(r'<a class="md-button (notebook-\w+)" href="([^"]+)"[^>]*>', links.group(1)))
    texts = re.findall(r">([^<]+)</a>", links.group(1))
    expected_texts = [escape(WORDS[lang][k]) for k in ("view", "download")]
    repo_url = os.environ.get("REPO_URL")
    if repo_url:  # the build knows its repository (the deploy's environment)
        assert found.pop("notebook-colab") == colab_url(repo_url, _site_path(page))
        assert found.pop("notebook-kaggle") == kaggle_url(repo_url, _site_path(page))
        expected_texts += [escape(WORDS[lang]["colab"]), escape(WORDS[lang]["kaggle"])]
    assert texts == expected_texts
    assert set(found) == {"notebook-view", "notebook-download"}
    view = served.parent / found["notebook-view"] / "index.html"
    assert view.resolve() == _notebook_page(built_site, page).resolve()
    download = served.parent / found["notebook-download"]
    assert download.resolve() == (built_site / _site_path(page)).resolve()
    assert download.read_text(encoding="utf-8") == _made(page), "not the notebook of the page as it is now"


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_notebook_page_is_rendered_in_its_language(built_site, page):
    lang = page.parent.name
    html = _notebook_page(built_site, page).read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html
    assert html.count('class="jp-Cell ') >= 3 and "jp-MarkdownCell" in html and "jp-CodeCell" in html
    assert '"cells":' not in html, "the notebook's JSON, not its rendering"
    heading = plain_title(get_data(page.read_text(encoding="utf-8"))[0].splitlines()[0].removeprefix("# "))
    assert f"<title>{escape(WORDS[lang]['page_title'].format(title=heading), quote=False)} - " in html
    assert "`" not in re.search(r"<title>(.*?)</title>", html)[1], "Markdown in the title"
    nb = _built(built_site, page)
    if shown := next((_stdout(c) for c in nb.cells if _stdout(c)), None):
        assert escape(shown.splitlines()[0], quote=False) in html, "the first shown output is not on the page"
    assert SCRIPTS_TAG not in html and "SCRIPTS = {" not in html, "the scripts' cell is on the page"
    assert f'<a class="md-button notebook-download" href="{page.stem}.ipynb" download>' in html
    assert "jp-InputPrompt" not in html, "the prompt column is back (mkdocs.yml: no_prompt)"
    assert ".md#" not in html and '.md"' not in html, "a link to a page's source, not to the page"
    # its sections keep the page's ids, and its table of contents leads to them by name
    for anchor in re.findall(r"^##\s.*\{\s*#([\w-]+)\s*\}\s*$", page.read_text(encoding="utf-8"), re.M):
        assert html.count(f'id="{anchor}"') == 1 and f'<a href="#{anchor}" class="md-nav__link">' in html, anchor
    assert not re.search(r'class="md-nav__link">\s*<span class="md-ellipsis">\s*</span>', html), "a nameless entry"


def test_every_notebook_page_is_in_the_nav_of_its_language_in_the_pages_order(built_site):
    def nav_files(items):  # the nav's files in order: an entry is "file", {title: "file"} or {title: [entries]}
        for item in items:
            for sub in (item.values() if isinstance(item, dict) else [item]):
                yield from nav_files(sub) if isinstance(sub, list) else [sub]

    nav_order = [name.removesuffix(".md") for name in nav_files(settings()["nav"]) if name.endswith(".md")]
    for lang in LANGUAGES:
        page_dir = _served(built_site, lang, "devices")
        html = (page_dir / "index.html").read_text(encoding="utf-8")
        links = [(h, re.sub(r"<[^>]+>", "", text).strip()) for h, text in
                 re.findall(r'<a href="([^"]+)" class="md-nav__link">(.*?)</a>', html, re.S) if "notebooks/" in h]
        with_code = sorted((p for p in PAGES if p.parent.name == lang), key=lambda p: nav_order.index(p.stem))
        assert [(page_dir / h / "index.html").resolve() for h, _ in links] == [
            _notebook_page(built_site, page).resolve() for page in with_code]
        # "<the page's heading> (notebook)" in the page's language
        for (_, text), page in zip(links, with_code, strict=True):
            source = get_data(page.read_text(encoding="utf-8"))[0]
            heading = re.search(r"^# (.+)$", source, re.M)[1]
            assert text == unescape(WORDS[lang]["page_title"].format(title=plain_title(heading))), page


def test_the_sitemap_lists_every_notebook_page_with_its_other_language(built_site):
    sitemap = (built_site / "sitemap.xml").read_text(encoding="utf-8")
    entries = re.findall(r"<url>\s*<loc>([^<]+)</loc>(.*?)</url>", sitemap, re.S)
    for page in PAGES:
        served = _notebook_page(built_site, page).parent.relative_to(built_site).as_posix() + "/"
        found = [rest for loc, rest in entries if loc == min(loc for loc, _ in entries) + served]  # the home's + path
        assert found, f"{page}: its notebook page {served} is not in sitemap.xml"
        assert re.findall(r'hreflang="(\w+)"', found[0]) == list(LANGUAGES), page


def test_notebook_pages_are_searched_in_their_language(built_site):
    index = search_index.read_indexes(built_site)
    entries = {d["location"]: d for d in index["docs"]}
    for page in PAGES:
        lang = page.parent.name
        url = _notebook_page(built_site, page).parent.relative_to(built_site).as_posix() + "/"
        url = "" if url == "./" else url
        assert url in entries, f"{url}: not in the search index"
        assert entries[url]["lang"] == lang
    # the code cells (here the device check's, as its source writes it) and the prompts stay out of the text
    device_check = {lang: escape(repr(WORDS[lang]["gpu_found"]), quote=False) for lang in LANGUAGES}
    code = [d["location"] for d in index["docs"] if "/notebooks/" in "/" + d["location"]
            and (device_check[d["lang"]] in d["text"] or "In\xa0[" in d["text"])]
    assert not code, f"notebook code in the search text: {code[:3]}"


# ------------------------------------------------------------------- one notebook, both languages, a tiny site


def build_one_notebook_site(folder: Path, repo_url: str) -> Path:
    """A bilingual site of one page with code, with the plugins and the notebook hook configured as mkdocs.yml
    configures them, built into folder/site. It shows at once whether a new mkdocs-static-i18n or mkdocs-jupyter
    still lets the notebook the build makes be a rendered page of each language (ultrabug/mkdocs-static-i18n#198)."""
    plugins = [p for p in settings()["plugins"] if isinstance(p, dict) and {"mkdocs-jupyter", "i18n"} & set(p)]
    config = {
        "site_name": "One notebook", "docs_dir": "docs", "site_url": "http://127.0.0.1:8000/", "repo_url": repo_url,
        "theme": {k: v for k, v in settings()["theme"].items() if k != "custom_dir"},  # the site's, less its overrides
        "plugins": plugins, "markdown_extensions": ["toc"],
        "hooks": [str(REPO / "docs/hooks/notebooks.py")],
        "nav": [{"Home": "index.md"}, {"Demo": "demo.md"}, {"Notebooks": []}],  # the hook fills the empty section
    }
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    for lang, (home, title) in zip(LANGUAGES, [("Home", "Demo"), ("首页", "演示")], strict=True):
        docs = folder / "docs" / lang
        docs.mkdir(parents=True)
        (docs / "index.md").write_text(f"# {home}\n", encoding="utf-8")
        (docs / "demo.md").write_text(f"# {title}\n\n```python\nprint(6 * 7)\n```\n\n"
                                      "<!--pytest-codeblocks:expected-output-->\n```text\n42\n```\n", encoding="utf-8")
    build = mkdocs_build(folder / "site", cwd=folder)
    assert build.returncode == 0, build.stderr[-4000:]
    return folder / "site"


ONE_REPO = "https://github.com/example/one-notebook"


@pytest.fixture(scope="session")
def one_notebook_site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("one-notebook")
    site = build_one_notebook_site(folder, ONE_REPO)
    assert sorted(p.name for p in folder.iterdir()) == ["docs", "mkdocs.yml", "site"], "the build left a folder"
    assert sorted(p.relative_to(folder).as_posix() for p in (folder / "docs").rglob("*")) == sorted(
        f"docs/{lang}{name}" for lang in LANGUAGES for name in ("", "/demo.md", "/index.md")), "the build wrote in docs"
    return site


def test_each_languages_notebook_is_a_rendered_page_of_that_language(one_notebook_site):
    for lang in LANGUAGES:
        html = _served(one_notebook_site, lang, "notebooks/demo/index.html").read_text(encoding="utf-8")
        assert html.lstrip().startswith("<!doctype html>") and f'<html lang="{lang}"' in html
        output = re.search(r'<div class="jp-RenderedText jp-OutputArea-output"[^>]*>\s*<pre>(.*?)</pre>', html, re.S)
        assert output and output.group(1).strip() == "42"
        # Colab and Kaggle open the notebook at its path in the site, where the deploy publishes it on its branch
        published = ("" if lang == LANGUAGES[0] else f"{lang}/") + "notebooks/demo/demo.ipynb"
        assert (one_notebook_site / published).read_text(encoding="utf-8") == _made(
            one_notebook_site.parent / "docs" / lang / "demo.md")
        colab = colab_url(ONE_REPO, published)
        assert f'<a class="md-button notebook-colab" href="{colab}">' in html
        kaggle = kaggle_url(ONE_REPO, published)
        assert f'<a class="md-button notebook-kaggle" href="{kaggle}">' in html
        other = LANGUAGES[1] if lang == LANGUAGES[0] else LANGUAGES[0]
        switch = re.search(rf'<a href="([^"]+)" hreflang="{other}" class="md-select__link">', html)
        target = _served(one_notebook_site, lang, "notebooks/demo") / switch.group(1) / "index.html"
        assert target.resolve() == _served(one_notebook_site, other, "notebooks/demo/index.html").resolve()
        page = _served(one_notebook_site, lang, "demo/index.html").read_text(encoding="utf-8")
        assert f'<a class="md-button notebook-colab" href="{colab}">' in page
        assert f'<a class="md-button notebook-kaggle" href="{kaggle}">' in page
        # the nav's empty section holds the notebook, titled in the page's language
        nav = re.findall(r'<a href="([^"]+)" class="md-nav__link">\s*<span class="md-ellipsis">\s*(.*?)\s*</span>',
                         page)
        assert (("../notebooks/demo/", WORDS[lang]["page_title"].format(title=("Demo", "演示")[LANGUAGES.index(lang)]))
                in [(h, unescape(t)) for h, t in nav]), nav


# ------------------------------------------------------------------ what only a notebook runs, run with nbclient
#
# A notebook's code cells are its page's blocks in its language (test_notebook_holds_the_pages_code_prose_and_outputs),
# each with the output the page shows, and the page's tests run every block once and compare that output
# (codeblocks_plugin.py, test_snippets.py): running the cells again in a kernel, once per language, would prove the
# same code a third and fourth time. What a notebook adds is checked here: its opening cells (the device check and the
# cell that writes the scripts its shell cells run), run in a Jupyter kernel with `%%bash` as a reader's would.


def _opening_cells(site: Path, lang: str) -> tuple[nbformat.NotebookNode, dict[str, str]]:
    """One notebook of the language's opening cells: the device check of a multi-GPU page (both of its branches'
    words), every notebook's scripts cell, and a shell cell that lists what they wrote; and the files to expect."""
    pages = [p for p in PAGES if p.parent.name == lang]
    cells = [notebooks.device_cell(WORDS[lang], multi_gpu=True)]
    scripts: dict[str, str] = {}
    for page in pages:
        nb = _built(site, page)
        for cell in nb.cells:
            if cell.cell_type == "code" and SCRIPTS_TAG in cell.metadata.get("tags", []):
                cells.append(nbformat.v4.new_code_cell(cell.source))
                scripts |= _scripts_literal(cell.source)
    cells.append(nbformat.v4.new_code_cell("%%bash\nsha256sum " + " ".join(sorted(scripts))))
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": notebooks.PYTHON_KERNEL})
    return nb, scripts


def _scripts_literal(source: str) -> dict[str, str]:
    """The SCRIPTS dict a scripts cell writes, read without running the cell."""
    scope: dict = {}
    exec(source.split("\nfor name, text in")[0], scope)  # the literal only: nothing is written
    return scope["SCRIPTS"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_notebooks_opening_cells_run_in_a_jupyter_kernel(built_site, lang):
    nb, scripts = _opening_cells(built_site, lang)
    assert scripts, "no notebook writes scripts: this test checks nothing of them"
    folder = Path(tempfile.mkdtemp(prefix="notebook-run-"))
    try:
        client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(folder)}})
        with open(folder / "kernel.log", "w+", encoding="utf-8") as log:
            try:
                client.execute(stderr=log)
            except Exception as error:
                log.seek(0)
                raise RuntimeError(f"{error}\nthe kernel's stderr:\n{log.read()[-3000:]}") from None
        written = {name: (folder / name).read_text(encoding="utf-8") for name in scripts}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    device = _stdout(nb.cells[0])
    if cuda_device_count() == 0:
        assert device == WORDS[lang]["no_gpu"] + "\n" + WORDS[lang]["no_multi_gpu"] + "\n", device
    else:
        assert device.startswith(WORDS[lang]["gpu_found"]), device
    assert written == scripts
    # the shell cell ran in the notebook's folder and found each file as written
    listed = dict(line.split(maxsplit=1)[::-1] for line in _stdout(nb.cells[-1]).splitlines())
    assert listed == {name: hashlib.sha256(text.encode()).hexdigest() for name, text in scripts.items()}


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_notebook_opens_with_the_device_check_and_the_scripts_its_shell_cells_run(built_site, page):
    """Structural: the notebook's device check is the one the kernel test runs, and its scripts cell writes exactly
    the repository's scripts that its shell cells run (and the modules they import), code as in the repository and
    comments in the notebook's language, so its shell cells run the code the page's shell blocks ran."""
    lang = page.parent.name
    nb = _built(built_site, page)
    multi = any("pytest.mark.multi_gpu" in b.marks for b in page_blocks(page))
    assert nb.cells[2].source == notebooks.device_cell(WORDS[lang], multi).source
    shell = "\n".join(c.source for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%bash"))
    written = [c for c in nb.cells if c.cell_type == "code" and SCRIPTS_TAG in c.metadata.get("tags", [])]
    wanted = notebooks.scripts_of(shell)
    if not wanted:
        assert not written
        return
    assert len(written) == 1 and nb.cells.index(written[0]) < min(
        i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith("%%bash"))
    scripts = _scripts_literal(written[0].source)
    assert list(scripts) == wanted
    for name, text in scripts.items():
        repo_text = (REPO / name).read_text(encoding="utf-8")
        assert behaviour_key("python", text) == behaviour_key("python", repo_text), f"{name}: not the repository's code"
