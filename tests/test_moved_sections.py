"""The split of the long pages (issue 35) broke no link: every section id that Several GPUs, Performance pitfalls and
GPU memory had before the split (docs/data/moved_sections.yml) is on the page the file names, in both languages, and
the old page sends a reader who asks for a moved one there. The browser follows a few of them
(tests/test_browser_home.py); this checks all of them in the built HTML."""

from __future__ import annotations

import json
import posixpath
import re

import pytest

from moved_sections import MOVED, SCHEMA, moved_away
from site_pages import LANGUAGES, REPO, Page, load_data, pages

MOVED_SECTIONS = load_data(REPO / MOVED, REPO / SCHEMA)
CASES = [(lang, old, anchor, new) for lang in LANGUAGES for old, anchors in MOVED_SECTIONS.items()
         for anchor, new in anchors.items()]
HOLDER = re.compile(r'<script type="application/json" id="moved-sections">(.*?)</script>', re.S)


def _html(built_site, page: Page) -> str:
    return (built_site / page.url / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_old_section_is_on_the_page_the_file_names(built_site, lang):
    missing = [f"{old}#{anchor} -> {new}" for lg, old, anchor, new in CASES if lg == lang
               and f' id="{anchor}"' not in _html(built_site, Page(lang, new))]
    assert not missing, f"{lang}: sections not where docs/data/moved_sections.yml says: {missing}"
    assert len([c for c in CASES if c[0] == lang]) >= 40  # the three pages had 41 section ids


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_old_page_points_its_moved_sections_to_their_pages(built_site, lang):
    for old, anchors in MOVED_SECTIONS.items():
        old_page = Page(lang, old)
        found = HOLDER.findall(_html(built_site, old_page))
        addresses = json.loads(found[0]) if found else {}
        expected = {anchor: posixpath.relpath(Page(lang, new).url or ".", old_page.url or ".") + "/"
                    for anchor, new in moved_away(MOVED_SECTIONS, old).items()}
        assert addresses == expected, f"{old_page.url}: {addresses} != {expected}"
        kept = set(anchors) - set(expected)
        assert kept and all(f' id="{a}"' in _html(built_site, old_page) for a in kept), old_page.url


def test_the_moved_sections_file_names_existing_pages_only():
    names = {page.name for page in pages()}
    wrong = sorted({n for anchors in MOVED_SECTIONS.values() for n in anchors.values()} - names)
    assert not wrong, wrong
