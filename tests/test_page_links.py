"""The pages lead to each other through their text, not only through the menu: every page is linked from another
page's prose, and the questions readers arrive with lead to their answers (issue 51), in both languages.

Over the Markdown: a link between pages is written `[text](page.md#anchor)`, and `mkdocs build --strict` checks
that each one resolves (mkdocs.yml, validation), so no build is needed here."""

from __future__ import annotations

import re

import pytest

from site_pages import LANGUAGES, Page, fences, pages

PAGES = pages()
# a Markdown link to a page of the same language: [text](name.md) or [text](name.md#anchor)
PAGE_LINK = re.compile(r"\]\(([\w-]+\.md)(#[\w-]*)?\)")


def links_from(page: Page) -> set[str]:
    """The pages (name.md, or name.md#anchor) that a page's text links to, code fences left out."""
    text = page.text()
    for fence in fences(text):
        text = text.replace(fence.code, "")
    return {name + (anchor or "") for name, anchor in PAGE_LINK.findall(text)}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.every_page
def test_every_page_is_linked_from_another_pages_text(lang):
    """A page reached only from the menu is lost to a reader who follows the text (Hangs and crashes was, with two
    links 5 screens down one page); Home, where the site opens, is the one page that needs none."""
    ours = [p for p in PAGES if p.lang == lang]
    linked = {target.split("#")[0] for p in ours for target in links_from(p) if target.split("#")[0] != p.name}
    unlinked = [p.name for p in ours if p.name not in linked and p.name != "index.md"]
    assert not unlinked, f"{lang}: pages no other page's text links to: {unlinked}"


# (page, a link it must have): the questions of issue 51 and where they must lead
QUESTION_PATHS = [
    ("index.md", "distributed-debugging.md"),            # "my DDP run hangs": a Home card
    ("troubleshooting.md", "distributed-debugging.md"),  # ... and a row of Troubleshooting's table
    ("troubleshooting.md", "out-of-memory.md#out-of-memory"),  # the two out-of-memory answers know of each other
    ("out-of-memory.md", "troubleshooting.md#out-of-memory"),
    ("index.md", "performance.md"),                      # "Slow GPU?" leads to Transfers and waiting, which
    ("performance.md", "mnist.md"),                      # leads to the measured small model
    ("performance.md", "cuda-graphs.md"),                # and to the answer to launch overhead
]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize(("source", "target"), QUESTION_PATHS, ids=[f"{s}->{t}" for s, t in QUESTION_PATHS])
def test_a_question_leads_to_its_answer(lang, source, target):
    assert target in links_from(Page(lang, source)), f"{lang}/{source} does not link to {target}"

