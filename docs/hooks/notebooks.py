"""Every page with code becomes a Jupyter notebook in its language, generated at build time.

The notebook is made from the same page and snippets (jupytext reads the expanded Markdown), is
offered for download on the page, and the MNIST one is also rendered as a page by mkdocs-jupyter.
Glue, because jupytext, mkdocs-static-i18n and mkdocs-jupyter do not know about each other.
"""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

import jupytext
import nbformat
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.utils.meta import get_data
from mkdocs_jupyter.plugin import NotebookFile

from page_source import LANGUAGES, RUN_SYNTAXES, code_blocks, expand_includes, join_cjk_lines, open_admonitions

NOTEBOOK_DIR = "notebooks"
# pages also shown as a notebook page (rendered by mkdocs-jupyter): page -> notebook page name
NOTEBOOK_PAGES = {"mnist.md": "mnist-notebook.ipynb"}
CELL_TAGS = {"cuda": "needs-cuda", "multi_gpu": "needs-multi-gpu", "no_cuda": "output-shown-for-cpu"}
TEXT = {
    "en": {
        "download": "Download this page as a Jupyter notebook",
        "intro": "Generated from the page “{title}” of *PyTorch on CPU and GPU*. Run it from the root of a "
        "clone of the site's repository, so that the `snippets/` paths resolve. Cells tagged "
        "`needs-cuda` need an NVIDIA GPU.",
    },
    "zh": {
        "download": "下载本页的 Jupyter 笔记本",
        "intro": "由《在 CPU 与 GPU 上运行 PyTorch》中的“{title}”一页生成。请在本站仓库克隆目录的根目录下运行，"
        "这样 `snippets/` 路径才能找到。带有 `needs-cuda` 标签的单元格需要 NVIDIA GPU。",
    },
}


PYTHON_KERNEL = (
    "---\njupyter:\n  kernelspec:\n    name: python3\n    display_name: Python 3\n    language: python\n---\n"
)


def page_notebook(page: Path, lang: str) -> nbformat.NotebookNode:
    """The notebook of one page: prose as Markdown cells, each runnable fence as a code cell."""
    source, _ = get_data(page.read_text(encoding="utf-8"))  # the front matter is for the site's search only
    raw_blocks = [b for b in code_blocks(source) if b.syntax in RUN_SYNTAXES]
    text = open_admonitions(expand_includes(source, lang=lang))
    if lang == "zh":
        text = join_cjk_lines(text)
    # a Python kernel, said up front: otherwise jupytext takes the most frequent fence language (bash on
    # the MNIST page) as the notebook's and turns the python cells into %%python magics
    nb = jupytext.reads(PYTHON_KERNEL + text, fmt="md")
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    if len(code_cells) != len(raw_blocks):
        raise ValueError(f"{page}: {len(raw_blocks)} runnable fences but {len(code_cells)} notebook code cells")
    for cell in nb.cells:
        cell.metadata = {}  # drop jupytext's layout hints
    for cell, block in zip(code_cells, raw_blocks, strict=True):
        marks = {m.strip().removeprefix("pytest.mark.") for m in block.marks}
        tags = sorted(CELL_TAGS[m] for m in marks if m in CELL_TAGS)
        if tags:
            cell.metadata["tags"] = tags
    title = next((c.source.splitlines()[0].lstrip("# ") for c in nb.cells if c.cell_type == "markdown"), page.stem)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(TEXT[lang]["intro"].format(title=title)))
    nb.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    }
    nbformat.validate(nb)
    return nb


def _lang(page_src_uri: str) -> str:
    first = PurePosixPath(page_src_uri).parts[0]
    return first if first in LANGUAGES else LANGUAGES[0]


def _has_code(page: Path) -> bool:
    return any(b.syntax in RUN_SYNTAXES for b in code_blocks(page.read_text(encoding="utf-8")))


_generated = Path(tempfile.mkdtemp(prefix="notebook-pages-"))


@event_priority(-110)  # after static-i18n (-100) picked this language's files: add its notebook pages
def on_files(files: Files, config) -> Files:
    i18n = config.plugins["i18n"]
    lang = i18n.current_language
    prefix = "" if lang == i18n.default_language else f"{lang}/"
    for page_name, nb_name in NOTEBOOK_PAGES.items():
        page = Path(config["docs_dir"]) / lang / page_name
        if not page.is_file():
            continue
        # the generated file's path mirrors the page it will be served as: zh/… for Chinese, … for English
        target = _generated / prefix / nb_name
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(page_notebook(page, lang), target)
        file = File(prefix + nb_name, str(_generated), config["site_dir"], config["use_directory_urls"])
        # what static-i18n records on the files it sorted itself, so the language switch finds the twin page
        stem = nb_name.removesuffix(".ipynb")
        file.alternates = {
            other: SimpleNamespace(url=("" if other == i18n.default_language else f"{other}/") + f"{stem}/")
            for other in LANGUAGES
        }
        file.locale = file.locale_alternate_of = file.localization = lang
        file.norm_src_uri = nb_name
        # mkdocs-jupyter wraps notebooks in its own on_files, which ran before this file existed
        files.append(NotebookFile(file, **config))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    src = Path(page.file.abs_src_path or "")
    if src.suffix != ".md" or not _has_code(src):
        return markdown
    lang = _lang(page.file.src_uri)
    url_parts = PurePosixPath(page.url).parts if page.url else ()
    depth = len(url_parts) - (1 if url_parts[:1] == (lang,) else 0)  # relative to this language's root
    href = "../" * depth + f"{NOTEBOOK_DIR}/{src.stem}.ipynb"
    button = (
        f'<a class="md-button notebook-download" href="{href}" download>'
        f"{html.escape(TEXT[lang]['download'])}</a>\n\n"
    )
    lines = markdown.split("\n", 1)
    if lines[0].startswith("# "):
        return lines[0] + "\n\n" + button + (lines[1] if len(lines) > 1 else "")
    return button + markdown


def on_post_build(config) -> None:
    # static-i18n runs one build per language into the same site_dir, other languages under <lang>/
    i18n = config.plugins["i18n"]
    lang = i18n.current_language
    out = Path(config["site_dir"], "" if lang == i18n.default_language else lang, NOTEBOOK_DIR)
    out.mkdir(parents=True, exist_ok=True)
    for page in sorted((Path(config["docs_dir"]) / lang).glob("*.md")):
        if _has_code(page):
            nbformat.write(page_notebook(page, lang), out / f"{page.stem}.ipynb")


# nbconvert's page template loads MathJax and mermaid from a CDN; these notebooks use neither.
_CDN_SCRIPTS = re.compile(
    r'<script src="(?:(?:https?:)?//[^"]*)?">\s*</script>'  # MathJax: remote or empty src; local ones stay
    r'|<script type="module">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*?</script>',
    re.S,
)


def on_post_page(output: str, page, config) -> str:
    if isinstance(page.file, NotebookFile):
        output = _CDN_SCRIPTS.sub("", output)
    return output
