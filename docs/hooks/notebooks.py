"""The notebook of every page with code: made from the page, committed, rendered as a page, opened in Colab or Kaggle.

`make notebooks` (this file run as a program) writes docs/<lang>/notebooks/<page>.ipynb from docs/<lang>/<page>.md:
the page's prose as Markdown cells in its language, each code fence a code cell (includes expanded, comments in
the language, GPU cells tagged by site_pages.BLOCK_MARKS), each output the page shows as that cell's output. A
device check opens it, and where shell cells run the repository's scripts a cell writes them, so that the
notebook runs anywhere: in Colab (its metadata asks for a GPU runtime), in Kaggle, or downloaded into any folder.
tests/test_notebooks.py fails, naming the page, when a committed notebook no longer matches its page, and runs
every notebook on the CPU.

The build (the hook below) puts its links under each page's heading: the notebook as a page of the site
(docs/hooks/notebook_pages.py has mkdocs-jupyter render it), its download, and "Open in Colab" and "Open in Kaggle"
where the build knows its GitHub repository (REPO_URL, README.md "Addresses"; a local build has none and shows none).
"""

from __future__ import annotations

import html
import posixpath
import re
import sys
import unicodedata
from pathlib import Path

import jupytext
import nbformat
from mkdocs.plugins import get_plugin_logger
from mkdocs.utils.meta import get_data

from site_pages import (
    BLOCK_MARKS,
    COMMENTS,
    COMMENTS_SCHEMA,
    DOCS,
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

NOTEBOOKS = "notebooks"  # docs/<lang>/notebooks/<page>.ipynb
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
BRANCH = "main"  # the deploy publishes main (.github/workflows/docs.yml), so its notebooks are the committed ones


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


def notebook_path(page: Path) -> Path:
    """docs/<lang>/<page>.md -> docs/<lang>/notebooks/<page>.ipynb"""
    return page.parent / NOTEBOOKS / f"{page.stem}.ipynb"


def has_code(text: str) -> bool:
    return any(f.runs for f in fences(text))


def pages_with_code() -> list[Path]:
    return [p.path for p in pages() if has_code(p.text())]


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
               nbformat.v4.new_markdown_cell(words["intro"].format(title=title))]
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


def notebook_text(page: Path, words: dict | None = None) -> str:
    """The committed form of a page's notebook: nbformat's JSON, one trailing newline."""
    lang = page.parent.name
    return nbformat.writes(page_notebook(page, lang, (words or load_text("notebooks"))[lang])) + "\n"


def _shown(path: Path) -> str:
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)


def stale_notebooks(with_code: list[Path] | None = None) -> list[str]:
    """One line per page (of the pages with code, or of with_code) whose committed notebook is missing or no
    longer what the page makes."""
    words = load_text("notebooks")
    lines = []
    for page in pages_with_code() if with_code is None else with_code:
        committed = notebook_path(page)
        if not committed.is_file():
            lines.append(f"{_shown(page)}: no notebook {_shown(committed)}; run `make notebooks`")
        elif committed.read_text(encoding="utf-8") != notebook_text(page, words):
            lines.append(f"{_shown(page)}: its notebook {_shown(committed)} is stale; run `make notebooks`")
    return lines


def write_notebooks() -> list[Path]:
    """(Re)write every page's notebook, and remove the notebooks of pages that have no code (or no page) now."""
    words = load_text("notebooks")
    wanted = {notebook_path(page): page for page in pages_with_code()}
    for path in sorted(DOCS.glob(f"*/{NOTEBOOKS}/*.ipynb")):
        if path not in wanted:
            path.unlink()
    written = []
    for path, page in wanted.items():
        text = notebook_text(page, words)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def github_path(repo_url: str | None, notebook: str) -> str | None:
    """owner/name/blob/<branch>/<notebook>: a committed notebook's address on GitHub, less the host; None for a
    repository elsewhere or none (a local build). Colab and Kaggle both open a notebook from it."""
    m = GITHUB.match(repo_url or "")
    return f"{m[1]}/{m[2]}/blob/{BRANCH}/{notebook}" if m else None


def colab_url(repo_url: str | None, notebook: str) -> str | None:
    """Colab's address of a committed notebook (its path in the repository), for a GitHub repository; else None."""
    path = github_path(repo_url, notebook)
    return f"https://colab.research.google.com/github/{path}" if path else None


def kaggle_url(repo_url: str | None, notebook: str) -> str | None:
    """Kaggle's "open a notebook from GitHub" address of a committed notebook, for a GitHub repository; else None."""
    path = github_path(repo_url, notebook)
    return f"https://kaggle.com/kernels/welcome?src=https://github.com/{path}" if path else None


def links_html(words: dict, view: str | None, download: str, repo_url: str | None, notebook: str) -> str:
    """The row of links to a page's notebook: as a page (unless it is that page), download, Colab and Kaggle (the
    committed notebook at `notebook`, its path in the repository)."""
    links = [(view, "notebook-view", words["view"], ""),
             (download, "notebook-download", words["download"], " download"),
             (colab_url(repo_url, notebook), "notebook-colab", words["colab"], ""),
             (kaggle_url(repo_url, notebook), "notebook-kaggle", words["kaggle"], "")]
    return '<p class="notebook-links">' + " ".join(
        f'<a class="md-button {cls}" href="{html.escape(href)}"{extra}>{html.escape(text)}</a>'
        for href, cls, text, extra in links if href
    ) + "</p>"


log = get_plugin_logger(__name__)
_words: dict[str, dict] = {}


def on_pre_build(config) -> None:
    _words.update(load_text("notebooks"))


def on_page_markdown(markdown: str, page, config, files) -> str:
    if not page.file.src_uri.endswith(".md") or page.file.abs_src_path is None:
        return markdown
    source = Path(page.file.abs_src_path)
    if not has_code(source.read_text(encoding="utf-8")):
        return markdown
    lang = language_of(page.file.src_uri)
    src_uri = f"{lang}/{NOTEBOOKS}/{source.stem}.ipynb"
    notebook = files.src_uris.get(src_uri)
    if notebook is None:  # a new page: tests/test_notebooks.py names it until `make notebooks` has made its notebook
        log.info(f"{page.file.src_uri}: no notebook docs/{src_uri} yet (make notebooks): no notebook links")
        return markdown
    view = notebook.url_relative_to(page.file)
    links = links_html(_words[lang], view, posixpath.join(view, f"{source.stem}.ipynb"),
                       config.get("repo_url"), f"docs/{src_uri}")
    heading, _, rest = markdown.partition("\n")
    return f"{heading}\n\n{links}\n{rest}" if heading.startswith("# ") else f"{links}\n\n{markdown}"


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        stale = stale_notebooks()
        print("\n".join(stale) or "every notebook matches its page")
        return 1 if stale else 0
    if argv:
        print("usage: python docs/hooks/notebooks.py [--check]", file=sys.stderr)
        return 2
    written = write_notebooks()
    print("\n".join(p.relative_to(REPO).as_posix() for p in written) or "every notebook matches its page")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
