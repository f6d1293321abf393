"""A page's Markdown as the reader sees it: each include fence titled with its snippet file, code comments in
the page's language (docs/data/comments/<lang>/<snippet folder>.yml) and, in Chinese, no hard line breaks; the
tooltip of its headings' permalinks, and the labels mkdocs-jupyter writes on a notebook page, in its language
(docs/data/text/<lang>/page_text.yml).

The page sources stay bare `python` fences holding only an include, which is what pytest-codeblocks runs; the
includes are expanded with site_pages.expand_includes, the function the notebooks and the page tests use, so
what a page shows, copies and runs is the same code.
"""

from __future__ import annotations

import html
import re
import subprocess

from mkdocs.plugins import event_priority

import site_pages as site
from site_pages import COMMENTS, COMMENTS_SCHEMA, REPO, join_cjk_lines, language_of, load_data, load_text

INCLUDE_FENCE = re.compile(r'^([ \t]*)```python\n([ \t]*--8<--\s+"([^":]+)(?::[^"]*)?"\s*\n)', re.M)
# Home's clone command, written with placeholders in each language; every build shows a copyable command in their
# place: a build that knows its repository (the deploy sets REPO_URL, README.md "Addresses") clones it, a local one
# clones the checkout's `origin`, or, with none, goes to the checkout the site was built from
CLONE = re.compile(r"git clone <[^>\n]+> && cd <[^>\n]+>")
# a shown output's block (a `text` fence; mkdocs.yml's pygments_lang_class names the language): inside `.no-copy`,
# Material gives it no copy button
OUTPUT_BLOCK = re.compile(r'(<div class="language-text highlight)(">)(.*?</pre>)', re.S)
# an output whose lines line up in columns: two or more lines, one with a run of spaces between two words (a table
# printed with spaces) or a row of a printed tensor under the one above; marked .aligned, it scrolls on a phone
# instead of wrapping apart (docs/stylesheets/extra.css)
ALIGNED = re.compile(r"\S {2,}\S|^ +\[", re.M)


def output_block(match: re.Match) -> str:
    start, end, block = match.groups()  # block: a title (a span) first, where the fence has one, then the <pre>
    text = html.unescape(re.sub(r"<[^>]+>", "", block[block.index("<pre"):]))
    aligned = " aligned" if text.strip().count("\n") and ALIGNED.search(text) else ""
    return start + " no-copy" + aligned + end + block


def clone_command(repo_url: str) -> str:
    """`git clone <url>` and `cd <folder>`, one per line to fit the code column, for a repository address
    (https://host/owner/name, or git@host:owner/name.git)."""
    url = repo_url.rstrip("/")
    # a hosted repository answers to <url>.git too; a local path (a clone's `origin`) only to its own name
    if is_hosted(url) and not url.endswith(".git"):
        url += ".git"
    return f"git clone {url}\ncd {re.split(r'[/:]', url)[-1].removesuffix('.git')}"


def is_hosted(url: str) -> bool:
    """Whether a repository address names a host (https://host/…, ssh://…, git@host:…), not a local path."""
    return bool(re.match(r"[\w+.-]+://|[\w.-]+@[\w.-]+:", url)) and not url.startswith("file://")


def local_clone_command() -> str:
    """Home's command for a build that was given no repository address: a clone of the checkout's `origin`, or
    where it has none, `cd` to the checkout itself (a local build is read where it was built)."""
    try:
        origin = subprocess.run(["git", "-C", str(REPO), "remote", "get-url", "origin"],
                                capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        origin = None
    if origin is not None and origin.returncode == 0 and origin.stdout.strip():
        url = origin.stdout.strip()
        # a relative path is relative to the checkout, not to where the reader runs the command
        return clone_command(url if is_hosted(url) or url.startswith("file://") else str((REPO / url).resolve()))
    return f"cd {REPO}"


_words: dict[str, dict] = {}


def set_permalink_title(mdx_configs: dict, lang: str) -> None:
    """The toc extension's tooltip for the link beside each heading, in lang: MkDocs makes a Markdown instance for
    each page from mdx_configs, so a page rendered after this call gets its own language's words."""
    if lang in _words:
        mdx_configs.setdefault("toc", {})["permalink_title"] = _words[lang]["permalink_title"]


def relabel(page_html: str, labels: dict[str, str]) -> str:
    """page_html with each label a template wrote in English (an attribute's value, or an element's whole text) in
    the words labels gives it."""
    for english, words in labels.items():
        if english != words:
            shown = html.escape(words)
            page_html = page_html.replace(f'"{english}"', f'"{shown}"').replace(f">{english}<", f">{shown}<")
    return page_html


def on_pre_build(config) -> None:
    for path in sorted((REPO / COMMENTS).glob("*/*.yml")):  # a bad file stops the build before any page
        load_data(path, REPO / COMMENTS_SCHEMA)
    _words.update(load_text("page_text"))


@event_priority(-50)  # after the other hooks have added their Markdown
def on_page_markdown(markdown: str, page, config, files) -> str:
    markdown = INCLUDE_FENCE.sub(lambda m: f'{m.group(1)}```python title="{m.group(3)}"\n{m.group(2)}', markdown)
    if CLONE.search(markdown):
        command = clone_command(config["repo_url"]) if config.get("repo_url") else local_clone_command()
        markdown = CLONE.sub(lambda _: command, markdown)
    lang = language_of(page.file.src_uri)
    set_permalink_title(config["mdx_configs"], lang)
    if lang not in site.LANGUAGES or lang == site.LANGUAGES[0]:
        return markdown  # English: pymdownx.snippets includes the files as they are
    return site.expand_includes(join_cjk_lines(markdown), lang)


def on_post_page(output: str, page, config) -> str:
    output = OUTPUT_BLOCK.sub(output_block, output)
    lang = language_of(page.file.src_uri)
    return relabel(output, _words[lang]["notebook_labels"]) if lang in _words else output
