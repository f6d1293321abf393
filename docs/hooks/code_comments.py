"""Code blocks show their comments in the page's language (docs/data/comments/<lang>/<snippet folder>.yml).

The snippets under snippets/ keep English comments; this expands each page's includes itself, with
page_source.expand_includes, the function the notebooks and the page tests use, so that what a page
shows, copies, downloads as a notebook and runs in the tests is the same code. Every data file is
checked against docs/data/comments.schema.json before the build: a bad one stops it, naming file and key.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority

from page_source import COMMENTS, LANGUAGES, expand_includes, load_comment_words


def on_pre_build(config) -> None:
    repo = Path(config["config_file_path"]).parent
    for path in sorted((repo / COMMENTS).glob("*/*.yml")):
        load_comment_words(path, repo)


@event_priority(-50)  # after snippet_titles.py has read the include lines
def on_page_markdown(markdown: str, page, config, files) -> str:
    lang = page.file.src_uri.split("/", 1)[0]
    if lang not in LANGUAGES or lang == LANGUAGES[0]:
        return markdown  # English: pymdownx.snippets includes the files as they are
    return expand_includes(markdown, Path(config["config_file_path"]).parent, lang)
