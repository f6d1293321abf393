"""The pages' notebooks (docs/<lang>/notebooks/*.ipynb, docs/hooks/notebooks.py) as pages of their language,
rendered by mkdocs-jupyter, with the links to download the notebook and open it in Colab or Kaggle under the heading.

Glue, because mkdocs-static-i18n and mkdocs-jupyter do not know about each other: mkdocs-jupyter marks the
notebooks as pages in its on_files, then i18n's on_files (-100) remakes every file of the language being built as
a plain MkDocs File, to which an .ipynb is no page, so it is copied raw. After i18n, each notebook of the
language becomes a page again (NotebookPage: a File that is a documentation page, served as <notebook>/index.html);
mkdocs-jupyter's on_pre_page then renders it, as it renders any page whose source its `include` matches.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from pathlib import Path

import jinja2
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.toc import get_toc
from nbconvert.exporters.templateexporter import TemplateExporter

from notebooks import NOTEBOOKS, links_html
from site_pages import LANGUAGES, language_of, load_text


class CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates, kept in memory for the whole build (and each rebuild of `mkdocs serve`)."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


COMPILED_TEMPLATES = CompiledTemplates()
_nbconvert_environment = TemplateExporter._create_environment


def _environment_keeping_templates(exporter: TemplateExporter) -> jinja2.Environment:
    environment = _nbconvert_environment(exporter)
    environment.bytecode_cache = COMPILED_TEMPLATES
    return environment


# Glue where mkdocs-jupyter meets nbconvert: it makes an exporter per notebook, and each compiled nbconvert's
# templates afresh (934 compilations in a build); Jinja checks a kept one against its template's source (a build's
# notebooks rendered about 1.5 times as fast)
TemplateExporter._create_environment = _environment_keeping_templates


class NotebookPage(File):
    """A notebook that is a page of the site (to MkDocs only Markdown files are)."""

    def is_documentation_page(self) -> bool:
        return True


def notebook_page(config, lang: str, path: str) -> NotebookPage:
    """The page of docs/<lang>/<path>, served where i18n serves its language's pages (the default one at the root)."""
    where = "" if lang == LANGUAGES[0] else f"{lang}/"
    parent, name = posixpath.split(path.removesuffix(".ipynb"))
    if config.use_directory_urls:
        dest = posixpath.join(where + parent, "" if name == "index" else name, "index.html")
    else:
        dest = posixpath.join(where + parent, f"{name}.html")
    page = NotebookPage(f"{lang}/{path}", config.docs_dir, config.site_dir, config.use_directory_urls, dest_uri=dest)
    # the attributes i18n gives the pages it sorts (its language switch reads them; ultrabug/mkdocs-static-i18n#198)
    page.locale = page.locale_alternate_of = page.localization = lang
    page.norm_src_uri = path
    # the edit button opens the page the notebook is made from, not the generated notebook
    page.edit_uri = f"{lang}/{name}.md" if parent == NOTEBOOKS else None
    return page


@event_priority(-110)  # after mkdocs-static-i18n (-100) remade this language's files
def on_files(files: Files, config) -> Files:
    docs = Path(config.docs_dir)
    for file in [f for f in files if f.src_uri.endswith(".ipynb") and language_of(f.src_uri) in LANGUAGES]:
        lang, path = file.src_uri.split("/", 1)
        page = notebook_page(config, lang, path)
        page.inclusion = file.inclusion
        page.alternates = {other: notebook_page(config, other, path) for other in LANGUAGES
                           if (docs / other / path).is_file()}
        files.remove(file)
        files.append(page)
    # i18n's sitemap lists the pages it kept in its own on_files, before the notebooks were pages again: its record of
    # this language's pages (an attribute of the plugin, mkdocs-static-i18n#198) made again with them
    i18n = config.plugins.get("i18n")
    if i18n is not None:
        i18n.i18n_files_per_language[i18n.current_language] = files.documentation_pages()
    return files


# a link of the notebook's Markdown to another page (docs/hooks/notebooks.py: relative to the notebooks folder)
PAGE_HREF = re.compile(r'href="\.\./([\w-]+\.md)(#[^"]*)?"')
# nbconvert's page template loads MathJax (here with an empty address) and, for diagrams, mermaid from a CDN; these
# notebooks have neither formulas nor diagrams, and the site loads nothing from outside
CDN_SCRIPTS = re.compile(r'<!-- Load mathjax -->\s*<script src="[^"]*">\s*</script>.*?'
                         r'<script type="text/x-mathjax-config">.*?</script>'
                         r'|<script type="module">(?:(?!</script>).)*?mermaid(?:(?!</script>).)*?</script>', re.S)
# not searched: a code cell's source (its <pre>, and the copy button's hidden copy), as the page it is made from has
# the same code in a search field of its own, nor the prompts, cell tags and "Copied!" (Material's search skips an
# element marked data-search-exclude, if no element of its kind is inside it)
NOT_SEARCHED = re.compile(r'(<div class="highlight-ipynb hl-\w+"><pre)(?=>)'
                          r'|(<(?:div|span) class="(?:clipboard-copy-txt|jp-(?:In|Out)putPrompt jp-(?:Input|Output)Area'
                          r'-prompt|cell-tag|notice)")')
# the page's id of a heading (docs/hooks/notebooks.py writes `{ #id }` as an anchor before it) and the heading as
# rendered, with nbconvert's id made from its words (none from Chinese ones)
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
_words: dict[str, dict] = {}
_shared_css: dict[str, str] = {}  # the file under SHARED_CSS -> its text


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


def on_pre_build(config) -> None:
    _words.update(load_text("notebooks"))
    # mkdocs-jupyter's cache (off unless NOTEBOOK_CACHE=true; the tests' builds share one, NOTEBOOK_CACHE_DIR) keeps
    # what one build used and deletes the rest; i18n builds each language as a build of its own, so one folder would
    # be emptied of the other language's notebooks every time: each language gets a folder
    jupyter = config.plugins.get("mkdocs-jupyter")
    i18n = config.plugins.get("i18n")
    if jupyter is not None and jupyter.config["cache"]:
        base = Path(jupyter.config["cache_dir"])
        base = base.parent if base.name in LANGUAGES else base  # pointed at the last pass's language
        jupyter.config["cache_dir"] = str(base / getattr(i18n, "current_language", LANGUAGES[0]))


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
    """A notebook page that the nav does not title is "<the page's heading> (notebook)" in its language: told apart
    from its page in the browser's tab and the search results."""
    if isinstance(page.file, NotebookPage):
        heading = json.loads(markdown)["cells"][0]["source"]
        heading = "".join(heading) if isinstance(heading, list) else heading
        page.meta["title"] = _words[language_of(page.file.src_uri)]["page_title"].format(
            title=heading.removeprefix("# ").strip())
    return markdown


def on_page_content(html: str, page, config, files) -> str:
    """Under a notebook page's heading: the download (mkdocs-jupyter's include_source puts the notebook next to
    its page) and Colab; its links to other pages lead to those pages of the site; its code cells out of the search
    (docs/hooks/search_index.py weighs the rest); its headings with the page's ids, its table of contents made
    from them."""
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
    name = posixpath.basename(page.file.src_uri)
    links = links_html(_words[lang], None, name, config.get("repo_url"), f"docs/{page.file.src_uri}")
    head, h1, rest = html.partition("</h1>")
    return f"{head}{h1}{links}{rest}" if h1 else links + html


def on_post_build(config) -> None:
    for name, css in _shared_css.items():
        path = Path(config.site_dir) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(css, encoding="utf-8")
