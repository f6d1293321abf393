"""The notebook of every page with code, made by the build from the page, rendered as a page of the site by
mkdocs-jupyter, downloadable, and opened in Colab or Kaggle from the branch the deploy publishes them on.

Each build writes, for the language it builds, docs/<lang>/<page>.md's notebook: the page's prose as Markdown cells,
each code fence a code cell (includes expanded, comments in the language, GPU cells tagged by site_pages.BLOCK_MARKS),
each output the page shows as that cell's output. A device check opens it, and where shell cells run the
repository's scripts a cell writes them, so that the notebook runs anywhere: in Colab (its metadata asks for a GPU
runtime), in Kaggle, or downloaded into any folder. Nothing is committed: the notebooks are written to a folder of
the build's own and become pages served at <lang>/notebooks/<page>/, with the .ipynb beside them (mkdocs-jupyter's
include_source: the download). The deploy (.github/workflows/docs.yml) pushes the site's .ipynb files, at their paths
in the site, to the `notebooks` branch, where Colab and Kaggle open them; a build that knows no GitHub repository
(REPO_URL, README.md "Addresses"; a local one) shows no such links. mkdocs.yml's empty "Pages as notebooks" section
of the nav gets each language's notebook pages in the order of their pages, so a new page needs no nav entry of its
own. tests/test_notebooks.py checks the notebooks a build made and runs their opening cells in a Jupyter kernel.

`python docs/hooks/notebooks.py OUT` (`make notebooks`) writes every page's notebook to OUT/<lang>/<page>.ipynb, to
open them in Jupyter without building the site.
"""

from __future__ import annotations

import hashlib
import html
import json
import posixpath
import re
import shutil
import sys
import tempfile
import unicodedata
from pathlib import Path

import jupytext
import nbformat
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Section
from mkdocs.structure.toc import get_toc
from mkdocs.utils.meta import get_data

from site_pages import (
    BLOCK_MARKS,
    COMMENTS,
    COMMENTS_SCHEMA,
    LANGUAGES,
    REPO,
    RUN_SYNTAXES,
    expand_includes,
    fences,
    join_cjk_lines,
    language_of,
    load_data,
    load_text,
    pages,
    translate_comments,
)

NOTEBOOKS = "notebooks"  # served at <lang>/notebooks/<page>/
# a box whose body is indented under it: an admonition (`!!! kind "Title"`, folded `??? kind`) or a tab (`=== "Title"`)
BOX = re.compile(r'^(?:(?:!!!|\?\?\?\+?)[ \t]+\w[\w-]*(?:[ \t]+"([^"]*)")?|===\+?[ \t]+"([^"]*)")[ \t]*$')
PYTHON_KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}
# what Colab itself writes into a notebook saved with a GPU runtime: it opens this one with a GPU (T4, the free one)
COLAB_GPU = {"accelerator": "GPU", "colab": {"gpuType": "T4"}}
# the tag of the cells that write the repository's scripts: in the downloaded notebook, not on its page
# (mkdocs.yml: mkdocs-jupyter's remove_cell_tags)
SCRIPTS_TAG = "repository-files"
DEVICE_TAG = "device-check"
# a page's output, shown after its code: `<!--pytest-codeblocks:expected-output-->` and a text fence
SHOWN_OUTPUT = re.compile(r"\A\s*<!--pytest-codeblocks:expected-output-->[ \t]*\n(`{3,})text[^\n]*\n(.*?)^\1[ \t]*\n?",
                          re.M | re.S)
TEST_MARKER = re.compile(r"^[ \t]*<!--\s*pytest[-.].*?-->[ \t]*\n?", re.M)
PLACEHOLDER = re.compile(r"^[ \t]*<!--\s*[\w-]+\s*-->[ \t]*$", re.M)  # what a hook fills in from the records
HTML_COMMENT = re.compile(r"[ \t]*<!--.*?-->[ \t]*\n?", re.S)  # any other: a note to the page's authors
HEADING_ID = re.compile(r"^(#{1,6}[ \t].*?)[ \t]*\{[ \t]*#([\w-]+)[ \t]*\}[ \t]*$", re.M)
ATTR_LIST = re.compile(r"[ \t]*\{:?[ \t]*[.#][^}\n]*\}")  # `{ .md-button }`: Jupyter has no attribute lists
# a link to another page: relative to docs/<lang>/, where the page is; the notebook is one folder down
PAGE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|/|#)([^)\s]+?\.md(?:#[^)\s]*)?)\)", re.I)
SCRIPT = re.compile(r"(?<![\w./-])(snippets/[\w/-]+\.py)\b")
SIBLING_IMPORT = re.compile(r"^(?:from|import)[ \t]+(\w+)", re.M)
GITHUB = re.compile(r"^https://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")
BRANCH = "notebooks"  # where the deploy (.github/workflows/docs.yml) pushes the site's notebooks, at their site paths


def open_boxes(text: str) -> str:
    """Each admonition or tab -> its title in bold and its body at top level (a notebook has no boxes), boxes inside
    boxes too."""
    while True:
        out: list[str] = []
        inside = False
        for line in text.splitlines():
            if m := BOX.match(line):
                inside = True
                title = m.group(1) or m.group(2)
                out.append(f"> **{title}**" if title else "")
                continue
            if inside and line.strip() and not line.startswith("    "):
                inside = False
            out.append(line[4:] if inside and line.startswith("    ") else line)
        opened = "\n".join(out) + "\n"
        if opened == text:
            return text
        text = opened


def notebook_markdown(text: str, words: dict) -> str:
    """Page Markdown as Jupyter reads it: a note where the build fills in records, no other HTML comment (test
    markers, notes to authors), heading ids as anchors, no attribute lists, links to the other pages from the
    notebooks folder."""
    text = HTML_COMMENT.sub("", PLACEHOLDER.sub(lambda m: words["placeholder"], TEST_MARKER.sub("", text)))
    text = HEADING_ID.sub(lambda m: f'<a id="{m.group(2)}"></a>\n\n{m.group(1)}', text)
    text = ATTR_LIST.sub("", text)
    return PAGE_LINK.sub(lambda m: f"](../{m.group(1)})", text)


def has_code(text: str) -> bool:
    return any(f.runs for f in fences(text))


def pages_with_code() -> list[Path]:
    return [p.path for p in pages() if has_code(p.text())]


def intro(words: dict, title: str) -> str:
    """The notebook's note under its title, naming the cell labels its page shows (tag_labels)."""
    labels = words["cell_tags"]
    return words["intro"].format(title=title, cuda=labels["needs-cuda"], multi_gpu=labels["needs-multi-gpu"])


def _wrapped(text: str, columns: int = 60) -> list[str]:
    """text in pieces of at most `columns` display columns (a Chinese character takes two), breaking between
    words and between Chinese characters, never inside a Latin word."""
    parts, width = [""], 0
    for token in re.findall(r"[!-~]+|\s|.", text):
        size = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in token)
        if width + size > columns and parts[-1].strip():
            parts.append("")
            width = 0
        parts[-1] += token
        width += size
    return parts


def _print_lines(words: str, indent: str) -> str:
    """A print() of words, wrapped to the code column."""
    return f"{indent}print(\n" + "".join(f"{indent}    {part!r}\n" for part in _wrapped(words)) + f"{indent})\n"


def device_cell(words: dict, multi_gpu: bool) -> nbformat.NotebookNode:
    """The first code cell: which CUDA GPU runs the notebook, or what to do without one, in the page's language."""
    code = (
        "import torch\n\n"
        "if torch.cuda.is_available():\n"
        f"    print({words['gpu_found']!r}, torch.cuda.get_device_name())\n"
        "else:\n" + _print_lines(words["no_gpu"], "    ")
    )
    if multi_gpu:
        code += "if torch.cuda.device_count() < 2:\n" + _print_lines(words["no_multi_gpu"], "    ")
    return nbformat.v4.new_code_cell(code.rstrip("\n"), metadata={"tags": [DEVICE_TAG]})


def scripts_of(code: str) -> list[str]:
    """The repository's scripts that shell code runs, and the sibling modules they import, in order."""
    found: list[str] = []
    todo = SCRIPT.findall(code)
    while todo:
        script = todo.pop(0)
        if script in found or not (REPO / script).is_file():
            continue
        found.append(script)
        folder = posixpath.dirname(script)
        todo += [f"{folder}/{name}.py" for name in SIBLING_IMPORT.findall((REPO / script).read_text(encoding="utf-8"))]
    return found


def scripts_cell(scripts: list[str], lang: str) -> nbformat.NotebookNode:
    """A cell that writes the scripts where the shell cells expect them, unless they are there (a clone)."""
    files = []
    for script in scripts:
        lines = (REPO / script).read_text(encoding="utf-8").splitlines()
        words = REPO / COMMENTS / lang / f"{Path(script).parent.name}.yml"
        if words.is_file():  # comments in the notebook's language, as a page shows them
            lines = translate_comments(lines, load_data(words, REPO / COMMENTS_SCHEMA))
        text = "\n".join(lines) + "\n"
        if "'''" in text or "\r" in text:
            raise ValueError(f"{script}: holds ''' or a carriage return, which the notebook cannot quote")
        files.append(f'    "{script}": r\'\'\'{text}\'\'\',\n')
    code = (
        "from pathlib import Path\n\n"
        "SCRIPTS = {\n" + "".join(files) + "}\n"
        "for name, text in SCRIPTS.items():\n"
        "    path = Path(name)\n"
        "    if not path.exists():\n"
        "        path.parent.mkdir(parents=True, exist_ok=True)\n"
        "        path.write_text(text, encoding=\"utf-8\")"
    )
    return nbformat.v4.new_code_cell(code, metadata={"tags": [SCRIPTS_TAG]})


def page_notebook(page: Path, lang: str, words: dict) -> nbformat.NotebookNode:
    """The notebook of one page: prose as Markdown cells, each code fence a code cell with the output the page
    shows after it, opened by the title, a note, the device check and (where needed) the scripts' cell."""
    source, _ = get_data(page.read_text(encoding="utf-8"))  # the front matter is for the site's search only
    # every Python or shell fence is a code cell: the runnable ones and the titled parts of a longer file that a
    # page shows piece by piece (the MNIST page's train.py, whose parts define, in order, what its commands run)
    raw_blocks = [f for f in fences(source) if f.syntax in RUN_SYNTAXES]
    text = open_boxes(expand_includes(source, lang=lang))
    text = join_cjk_lines(text) if lang == "zh" else text
    # a Python kernel, said up front: otherwise jupytext takes the most frequent fence language (bash on
    # the MNIST page) as the notebook's and turns the python cells into %%python magics
    kernel = "".join(f"    {key}: {value}\n" for key, value in PYTHON_KERNEL.items())
    nb = jupytext.reads(f"---\njupyter:\n  kernelspec:\n{kernel}---\n" + text, fmt="md")
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    if len(code_cells) != len(raw_blocks):
        raise ValueError(f"{page}: {len(raw_blocks)} code fences but {len(code_cells)} notebook code cells")
    for cell in nb.cells:
        cell.metadata = {}  # drop jupytext's layout hints
    for cell, block in zip(code_cells, raw_blocks, strict=True):
        if tags := sorted(BLOCK_MARKS[m].notebook_tag for m in block.marks if m in BLOCK_MARKS):
            cell.metadata["tags"] = tags

    cells: list[nbformat.NotebookNode] = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            if cells and cells[-1].cell_type == "code" and (shown := SHOWN_OUTPUT.match(cell.source)):
                cells[-1].outputs = [nbformat.v4.new_output("stream", name="stdout", text=shown.group(2))]
                cell.source = cell.source[shown.end():]
            cell.source = notebook_markdown(cell.source, words).strip("\n")
            if not cell.source.strip():
                continue
        cells.append(cell)

    # the title alone first (mkdocs-jupyter takes the page title from it), then the note and the device check
    title_line, _, rest = cells[0].source.partition("\n")
    if not title_line.startswith("# "):
        raise ValueError(f"{page}: the notebook does not start with the page's heading")
    title = title_line.removeprefix("# ").strip()
    opening = [nbformat.v4.new_markdown_cell(title_line),
               nbformat.v4.new_markdown_cell(intro(words, title))]
    shell = "\n".join(c.source for c in cells if c.cell_type == "code" and c.source.startswith("%%"))
    opening.append(device_cell(words, any("multi_gpu" in b.marks for b in raw_blocks)))
    if scripts := scripts_of(shell):
        opening += [nbformat.v4.new_markdown_cell(words["scripts"], metadata={"tags": [SCRIPTS_TAG]}),
                    scripts_cell(scripts, lang)]
    cells[0].source = rest.strip("\n")
    nb.cells = opening + (cells if cells[0].source else cells[1:])
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"  # not nbformat's random ids: a page makes the same notebook every time
    nb.metadata = {"kernelspec": PYTHON_KERNEL, "language_info": {"name": "python"}, **COLAB_GPU}
    nbformat.validate(nb)
    return nb


def github_path(repo_url: str | None, notebook: str) -> str | None:
    """owner/name/blob/<BRANCH>/<notebook>: a published notebook's address on GitHub (notebook: its path in the
    site), less the host; None for a repository elsewhere or none (a local build). Colab and Kaggle open it."""
    m = GITHUB.match(repo_url or "")
    return f"{m[1]}/{m[2]}/blob/{BRANCH}/{notebook}" if m else None


def colab_url(repo_url: str | None, notebook: str) -> str | None:
    """Colab's address of a published notebook (its path in the site), for a GitHub repository; else None."""
    path = github_path(repo_url, notebook)
    return f"https://colab.research.google.com/github/{path}" if path else None


def kaggle_url(repo_url: str | None, notebook: str) -> str | None:
    """Kaggle's "open a notebook from GitHub" address of a published notebook, for a GitHub repository; else None."""
    path = github_path(repo_url, notebook)
    return f"https://kaggle.com/kernels/welcome?src=https://github.com/{path}" if path else None


def links_html(words: dict, view: str | None, download: str, repo_url: str | None, notebook: str) -> str:
    """The row of links to a page's notebook: as a page (unless it is that page), download, Colab and Kaggle (the
    published notebook at `notebook`, its path in the site)."""
    links = [(view, "notebook-view", words["view"], ""),
             (download, "notebook-download", words["download"], " download"),
             (colab_url(repo_url, notebook), "notebook-colab", words["colab"], ""),
             (kaggle_url(repo_url, notebook), "notebook-kaggle", words["kaggle"], "")]
    return '<p class="notebook-links">' + " ".join(
        f'<a class="md-button {cls}" href="{html.escape(href)}"{extra}>{html.escape(text)}</a>'
        for href, cls, text, extra in links if href
    ) + "</p>"




# ---------------------------------------------------------------------------------------------- the build's hook
#
# Glue, because mkdocs-static-i18n and mkdocs-jupyter do not know about each other: i18n's on_files (-100) remakes
# every file of the language it builds as a plain MkDocs File, to which an .ipynb is no page. So the notebooks are
# added after it, as pages of the language (NotebookPage), and mkdocs-jupyter's on_pre_page renders them, as it
# renders any page whose source its `include` matches.


class NotebookPage(File):
    """A notebook that is a page of the site (to MkDocs only Markdown files are)."""

    def is_documentation_page(self) -> bool:
        return True


def notebook_page(config, lang: str, stem: str, folder: Path) -> NotebookPage:
    """The page of folder/<lang>/notebooks/<stem>.ipynb, served where i18n serves its language's pages (the default
    language at the root)."""
    where = ("" if lang == LANGUAGES[0] else f"{lang}/") + NOTEBOOKS
    if config.use_directory_urls:
        dest = posixpath.join(where, "" if stem == "index" else stem, "index.html")
    else:
        dest = posixpath.join(where, f"{stem}.html")
    # NOT_IN_NAV: the nav gets them in on_nav, after MkDocs has listed the pages its configuration leaves out
    page = NotebookPage(f"{lang}/{NOTEBOOKS}/{stem}.ipynb", str(folder), config.site_dir, config.use_directory_urls,
                        dest_uri=dest, inclusion=InclusionLevel.NOT_IN_NAV)
    # the attributes i18n gives the pages it sorts: its language switch reads them (ultrabug/mkdocs-static-i18n#198)
    page.locale = page.locale_alternate_of = page.localization = lang
    page.norm_src_uri = f"{NOTEBOOKS}/{stem}.ipynb"
    page.edit_uri = f"{lang}/{stem}.md"  # the edit button opens the page the notebook is made from
    return page


def site_path(notebook: File) -> str:
    """Where the site serves a notebook page's .ipynb (include_source: beside the page), e.g.
    zh/notebooks/ddp/ddp.ipynb; the deploy publishes it at the same path on BRANCH."""
    return posixpath.join(posixpath.dirname(notebook.dest_uri), posixpath.basename(notebook.src_uri))


def plain_title(markdown: str) -> str:
    """A heading's Markdown as the text of a <title>, a nav entry or a search result: no code, emphasis or links."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return re.sub(r"`([^`]*)`", r"\1", re.sub(r"(\*\*|__|(?<!\w)[*_]|[*_](?!\w))", "", text)).strip()


_words: dict[str, dict] = {}
_folders: dict[str, Path] = {}  # the language being built -> the folder its notebooks are written to
_shared_css: dict[str, str] = {}  # the file under SHARED_CSS -> its text


def _language(config) -> str:
    i18n = config.plugins.get("i18n")
    return i18n.current_language if i18n is not None else LANGUAGES[0]


def on_pre_build(config) -> None:
    _words.update(load_text("notebooks"))
    # mkdocs-jupyter's cache (off unless NOTEBOOK_CACHE=true; the tests' builds share one, NOTEBOOK_CACHE_DIR) keeps
    # what one build used and deletes the rest; i18n builds each language as a build of its own, so one folder would
    # be emptied of the other language's notebooks every time: each language gets a folder
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None and jupyter.config["cache"]:
        base = Path(jupyter.config["cache_dir"])
        base = base.parent if base.name in LANGUAGES else base  # pointed at the last pass's language
        jupyter.config["cache_dir"] = str(base / _language(config))


@event_priority(-110)  # after mkdocs-static-i18n (-100) chose this language's files
def on_files(files: Files, config) -> Files:
    """The notebook of each page of this language that has code, written to a folder of this build's, as a page."""
    lang = _language(config)
    folder = _folders[lang] = Path(tempfile.mkdtemp(prefix=f"notebooks-{lang}-"))
    docs = Path(config.docs_dir)
    for source in [f for f in files.documentation_pages()
                   if f.src_uri.endswith(".md") and language_of(f.src_uri) == lang]:
        path = Path(source.abs_src_path)
        if not has_code(path.read_text(encoding="utf-8")):
            continue
        notebook = folder / lang / NOTEBOOKS / f"{path.stem}.ipynb"
        notebook.parent.mkdir(parents=True, exist_ok=True)
        notebook.write_text(nbformat.writes(page_notebook(path, lang, _words[lang])) + "\n", encoding="utf-8")
        page = notebook_page(config, lang, path.stem, folder)
        page.alternates = {other: notebook_page(config, other, path.stem, folder) for other in LANGUAGES
                           if (docs / other / source.src_uri.split("/", 1)[1]).is_file()}
        files.append(page)
    # i18n's sitemap lists the pages it kept in its own on_files, before the notebooks were added: its record of this
    # language's pages (an attribute of the plugin, mkdocs-static-i18n#198) made again with them
    i18n = config.plugins.get("i18n")
    if i18n is not None:
        i18n.i18n_files_per_language[lang] = files.documentation_pages()
    return files


def _sections(items) -> list[Section]:
    found = []
    for item in items:
        if isinstance(item, Section):
            found += [item, *_sections(item.children)]
    return found


def _nav_pages(items) -> list:
    found = []
    for item in items:
        found += _nav_pages(item.children) if isinstance(item, Section) else [item] if item.is_page else []
    return found


@event_priority(-110)  # after mkdocs-static-i18n (-100) translated the nav
def on_nav(nav, config, files):
    """mkdocs.yml's empty section ("Pages as notebooks") filled with this language's notebook pages, in the order of
    the pages they are made from; the footer's previous and next links through them."""
    section = next((s for s in _sections(nav.items) if not s.children), None)
    if section is None:
        return nav
    notebooks = [f.page for page in nav.pages
                 if (f := files.src_uris.get(f"{language_of(page.file.src_uri)}/{NOTEBOOKS}/{page.file.name}.ipynb"))]
    for page in notebooks:
        page.parent = section
    section.children = notebooks
    nav.pages = _nav_pages(nav.items)
    for before, after in zip([None, *nav.pages], [*nav.pages, None], strict=True):
        if before is not None:
            before.next_page = after
        if after is not None:
            after.previous_page = before
    return nav


# a link of the notebook's Markdown to another page (notebook_markdown: relative to the notebooks folder)
PAGE_HREF = re.compile(r'href="\.\./([\w-]+\.md)(#[^"]*)?"')
# nbconvert's page template loads MathJax (here with an empty address) and, for diagrams, mermaid from a CDN; these
# notebooks have neither formulas nor diagrams, and the site loads nothing from outside
CDN_SCRIPTS = re.compile(r'<!-- Load mathjax -->\s*<script src="[^"]*">\s*</script>.*?'
                         r'<script type="text/x-mathjax-config">.*?</script>'
                         r'|<script type="module">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*?</script>', re.S)
# not searched: a code cell's source (its <pre>, and the copy button's hidden copy), as the page it is made from has
# the same code in a search field of its own, nor the cell tags and "Copied!" (Material's search skips an element
# marked data-search-exclude, if no element of its kind is inside it)
NOT_SEARCHED = re.compile(r'(<div class="highlight-ipynb hl-\w+"><pre)(?=>)'
                          r'|(<(?:div|span) class="(?:clipboard-copy-txt|jp-(?:In|Out)putPrompt jp-(?:Input|Output)Area'
                          r'-prompt|cell-tag|notice)")')
# the page's id of a heading (notebook_markdown writes `{ #id }` as an anchor before it) and the heading as rendered,
# with nbconvert's id made from its words (none from Chinese ones)
ANCHORED_HEADING = re.compile(r'<p><a id="([\w-]+)"></a></p>\s*<h([1-6]) id="[^"]*">(.*?)<a class="anchor-link" '
                              r'href="#[^"]*">', re.S)
# a rendered heading: mkdocs-jupyter's table of contents drops the inline code of a heading (`nvidia-smi` became an
# empty entry linking to no id), so the page's is made again from the headings as rendered
HEADING = re.compile(r'<h([1-6]) id="([^"]+)">(.*?)(?:<a class="anchor-link"[^>]*>.*?</a>)?</h\1>', re.S)
# mkdocs-jupyter inlines its stylesheets (JupyterLab's, about 590 KB) in every notebook page; the same text for each
# page, moved to one file the browser fetches once (there is no option to link them)
INLINED_CSS = re.compile(r'<style type="text/css">(.*?)</style>', re.S)
SHARED_CSS = "assets/notebooks"
# the labels of a cell's tags (mkdocs-jupyter's cell toolbar): a tag the reader's words name, the others left out
CELL_TAG = re.compile(r'<div class="button_container tags_button_container">\s*<span class="tag-container">\s*'
                      r'<span class="cell-tag"( data-search-exclude)?>([^<]*)</span>\s*</span>\s*</div>')


def table_of_contents(html: str):
    """The headings of rendered HTML as MkDocs' table of contents, nested by level."""
    tokens: list[dict] = []
    open_levels: list[dict] = []
    for level, anchor, inner in HEADING.findall(html):
        token = {"level": int(level), "id": anchor, "name": re.sub(r"<[^>]+>", "", inner).strip(), "children": []}
        while open_levels and open_levels[-1]["level"] >= token["level"]:
            open_levels.pop()
        (open_levels[-1]["children"] if open_levels else tokens).append(token)
        open_levels.append(token)
    return get_toc(tokens)


def shared_stylesheets(html: str, page_dir: str) -> tuple[str, dict[str, str]]:
    """HTML with each inline stylesheet replaced by a link to a file named after its text (site-relative path from
    page_dir, the page's folder in the site), and those files' texts."""
    made: dict[str, str] = {}

    def link(m: re.Match) -> str:
        css = m.group(1).strip()
        name = f"{SHARED_CSS}/{hashlib.sha256(css.encode()).hexdigest()[:16]}.css"
        made[name] = css
        return f'<link rel="stylesheet" href="{posixpath.relpath(name, page_dir or ".")}">'

    return INLINED_CSS.sub(link, html), made


def tag_labels(html: str, labels: dict[str, str]) -> str:
    """Each cell tag's label in the reader's words (the tag's name kept as its title); tags without words dropped."""
    def label(m: re.Match) -> str:
        tag = m.group(2).strip()
        if tag not in labels:
            return ""
        return (f'<div class="button_container tags_button_container"><span class="tag-container">'
                f'<span class="cell-tag" title="{tag}"{m.group(1) or ""}>{labels[tag]}</span></span></div>')

    return CELL_TAG.sub(label, html)


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Under the heading of a page with code: its notebook's links. A notebook page is titled "<the page's heading>
    (notebook)" in its language, in plain text: told apart from its page in the nav, the browser's tab and search."""
    lang = language_of(page.file.src_uri)
    if isinstance(page.file, NotebookPage):
        heading = json.loads(markdown)["cells"][0]["source"]
        heading = "".join(heading) if isinstance(heading, list) else heading
        page.meta["title"] = _words[lang]["page_title"].format(title=plain_title(heading.removeprefix("# ")))
        return markdown
    notebook = files.src_uris.get(f"{lang}/{NOTEBOOKS}/{page.file.name}.ipynb")
    if notebook is None or not page.file.src_uri.endswith(".md"):
        return markdown
    view = notebook.url_relative_to(page.file)
    links = links_html(_words[lang], view, posixpath.join(view, posixpath.basename(notebook.src_uri)),
                       config.get("repo_url"), site_path(notebook))
    heading, _, rest = markdown.partition("\n")
    return f"{heading}\n\n{links}\n{rest}" if heading.startswith("# ") else f"{links}\n\n{markdown}"


def on_page_content(html: str, page, config, files) -> str:
    """Under a notebook page's heading: the download and Colab; its links to other pages lead to those pages of the
    site; its code cells out of the search (docs/hooks/search_index.py weighs the rest); its headings with the page's
    ids, its table of contents made from them."""
    if not isinstance(page.file, NotebookPage):
        return html
    lang = language_of(page.file.src_uri)

    def site_link(m: re.Match) -> str:
        target = files.src_uris.get(f"{lang}/{m.group(1)}")
        return f'href="{target.url_relative_to(page.file)}{m.group(2) or ""}"' if target else m.group(0)

    html = PAGE_HREF.sub(site_link, CDN_SCRIPTS.sub("", html))
    html, made = shared_stylesheets(html, posixpath.dirname(page.file.dest_uri))
    _shared_css.update(made)
    html = NOT_SEARCHED.sub(lambda m: f"{m.group(1) or m.group(2)} data-search-exclude", html)
    html = tag_labels(html, _words[lang]["cell_tags"])
    html = ANCHORED_HEADING.sub(r'<h\2 id="\1">\3<a class="anchor-link" href="#\1">', html)  # the page's ids
    page.toc = table_of_contents(html)
    links = links_html(_words[lang], None, posixpath.basename(page.file.src_uri), config.get("repo_url"),
                       site_path(page.file))
    head, h1, rest = html.partition("</h1>")
    return f"{head}{h1}{links}{rest}" if h1 else links + html


def _remove_folder(config) -> None:
    folder = _folders.pop(_language(config), None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def on_post_build(config) -> None:
    for name, css in _shared_css.items():
        path = Path(config.site_dir) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(css, encoding="utf-8")
    _remove_folder(config)


def on_build_error(error) -> None:
    for folder in _folders.values():
        shutil.rmtree(folder, ignore_errors=True)
    _folders.clear()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python docs/hooks/notebooks.py OUT  (writes OUT/<lang>/<page>.ipynb)", file=sys.stderr)
        return 2
    words = load_text("notebooks")
    for page in pages_with_code():
        lang = page.parent.name
        path = Path(argv[0]) / lang / f"{page.stem}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nbformat.writes(page_notebook(page, lang, words[lang])) + "\n", encoding="utf-8")
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
