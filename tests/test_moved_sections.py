"""The split of the long pages (issue 35) broke no link: every section id that Several GPUs, Performance pitfalls and
GPU memory had before the split (mkdocs.yml, extra.moved_sections) is on the page named there, in both languages,
and the old page carries the list its script follows. The browser follows a few of them
(tests/test_browser_home.py); this checks all of them in the built HTML."""

from __future__ import annotations

import json
import re

import pytest

from site_pages import LANGUAGES, Page, pages, settings

MOVED_SECTIONS: dict[str, dict[str, str]] = settings()["extra"]["moved_sections"]
CASES = [(lang, old, anchor, new) for lang in LANGUAGES for old, anchors in MOVED_SECTIONS.items()
         for anchor, new in anchors.items()]
HOLDER = re.compile(r'<script type="application/json" id="moved-sections">(.*?)</script>', re.S)


def _html(built_site, page: Page) -> str:
    return (built_site / page.url / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_old_section_is_on_the_page_the_list_names(built_site, lang):
    missing = [f"{old}#{anchor} -> {new}" for lg, old, anchor, new in CASES if lg == lang
               and f' id="{anchor}"' not in _html(built_site, Page(lang, new))]
    assert not missing, f"{lang}: sections not where mkdocs.yml's extra.moved_sections says: {missing}"
    assert len([c for c in CASES if c[0] == lang]) >= 40  # the three pages had 41 section ids


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_old_page_carries_its_list_and_no_other_page_does(built_site, lang):
    for page in pages(lang):
        found = HOLDER.findall(_html(built_site, page))
        assert [json.loads(f) for f in found] == ([MOVED_SECTIONS[page.name]] if page.name in MOVED_SECTIONS
                                                  else []), page.url


def test_the_list_names_existing_pages_only():
    names = {page.name for page in pages()}
    wrong = sorted(({*MOVED_SECTIONS} | {n for anchors in MOVED_SECTIONS.values() for n in anchors.values()}) - names)
    assert not wrong, wrong
