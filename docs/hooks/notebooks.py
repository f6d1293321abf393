"""Every page with code as a Jupyter notebook in its language, offered for download at the top of the page.

The notebook is made from the same page and snippets (jupytext reads the expanded Markdown) and joins the
build as a generated file (MkDocs' File.generated): nothing is written outside the site. The nav's "MNIST as a
notebook" is the MNIST page's notebook itself. None is rendered as a page: mkdocs-static-i18n does not hand
.ipynb pages to mkdocs-jupyter (ultrabug/mkdocs-static-i18n#198), and rendering them took both plugins' internals.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import jupytext
import nbformat
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.utils.meta import get_data

from site_pages import (
    BLOCK_MARKS,
    LANGUAGES,
    RUN_SYNTAXES,
    expand_includes,
    fences,
    join_cjk_lines,
    language_of,
    load_text,
)

ADMONITION = re.compile(r'^(!!!|\?\?\?\+?)\s+\w[\w-]*(?:\s+"([^"]*)")?\s*$')
PYTHON_KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def open_admonitions(text: str) -> str:
    """`!!! kind "Title"` + indented body -> a bold title and the body at top level (a notebook has no boxes)."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        if m := ADMONITION.match(line):
            inside = True
            out.append(f"> **{m.group(2)}**" if m.group(2) else "")
            continue
        if inside and line.strip() and not line.startswith("    "):
            inside = False
        out.append(line[4:] if inside and line.startswith("    ") else line)
    return "\n".join(out) + "\n"


def page_notebook(page: Path, lang: str, intro: str) -> nbformat.NotebookNode:
    """The notebook of one page: prose as Markdown cells, each runnable fence as a code cell."""
    source, _ = get_data(page.read_text(encoding="utf-8"))  # the front matter is for the site's search only
    # every Python or shell fence is a code cell: the runnable ones and the titled parts of a longer file that a
    # page shows piece by piece (the MNIST page's train.py, whose parts define, in order, what its commands run)
    raw_blocks = [f for f in fences(source) if f.syntax in RUN_SYNTAXES]
    text = open_admonitions(expand_includes(source, lang=lang))
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
    title = next((c.source.splitlines()[0].lstrip("# ") for c in nb.cells if c.cell_type == "markdown"), page.stem)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(intro.format(title=title)))
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"  # not nbformat's random ids: a page makes the same notebook on every build
    nb.metadata = {"kernelspec": PYTHON_KERNEL, "language_info": {"name": "python"}}
    nbformat.validate(nb)
    return nb


_notebooks: dict[str, File] = {}  # a page's src_uri -> its notebook
_words: dict[str, dict] = {}


@event_priority(-110)  # after mkdocs-static-i18n (-100) chose this language's pages
def on_files(files: Files, config) -> Files:
    _words.update(load_text("notebooks"))
    for page in files.documentation_pages():
        lang = language_of(page.src_uri)
        if lang not in LANGUAGES or not any(f.runs for f in fences(page.content_string)):
            continue
        # served as <lang>/notebooks/<page>.ipynb, the default language's at the site root like its pages
        where = "" if lang == LANGUAGES[0] else f"{lang}/"
        nb = page_notebook(Path(page.abs_src_path), lang, _words[lang]["intro"])
        notebook = File.generated(config, f"{where}notebooks/{page.name}.ipynb", content=nbformat.writes(nb))
        files.append(notebook)
        _notebooks[page.src_uri] = notebook
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    notebook = _notebooks.get(page.file.src_uri)
    if notebook is None:
        return markdown
    text = _words[language_of(page.file.src_uri)]["download"]
    button = (
        f'<a class="md-button notebook-download" href="{notebook.url_relative_to(page.file)}" download>'
        f"{html.escape(text)}</a>\n\n"
    )
    heading, _, rest = markdown.partition("\n")
    return f"{heading}\n\n{button}{rest}" if heading.startswith("# ") else button + markdown
