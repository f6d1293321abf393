"""One word per idea: the pages' prose uses the glossary's terms, not their variants (docs/data/terms.yml).

That every glossary entry links to a real section is checked with every other link by the strict build
(`validation: links: anchors` in mkdocs.yml).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from site_pages import DOCS, LANGUAGES, REPO, pages

TERMS = yaml.safe_load((DOCS / "data" / "terms.yml").read_text(encoding="utf-8"))

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+).+?\1")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
HTML_COMMENT = re.compile(r"<!--.*?-->")
HEADING_ID = re.compile(r"\{\s*#[\w-]+\s*\}")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of what a reader reads as sentences: no front matter, code, link targets,
    HTML comments or heading ids."""
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
    prose, in_fence = [], False
    for number, line in enumerate(lines[start:], start + 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for pattern in (HTML_COMMENT, INLINE_CODE, LINK_TARGET, HEADING_ID):
            line = pattern.sub(" ", line)
        prose.append((number, line))
    return prose


def rejected_words(text: str, lang: str) -> list[tuple[int, str, str]]:
    """(line, variant found, word to use) for every rejected variant in the prose of a page's text."""
    found = []
    for number, line in prose_lines(text):
        for preferred, variants in TERMS[lang].items():
            for variant in variants:
                for match in re.finditer(variant, line):
                    found.append((number, match.group(0), preferred))
    return found


def test_every_language_has_its_term_list():
    assert set(TERMS) == set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_prose_uses_one_word_per_idea(lang):
    wrong = [
        f"{page.path.relative_to(REPO)}:{number}: “{found}” — use “{preferred}”"
        for page in pages(lang)
        if page.name != "glossary.md"
        for number, found, preferred in rejected_words(page.text(), lang)
    ]
    assert not wrong, "terms other than the glossary's:\n" + "\n".join(wrong)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_glossary_gives_every_preferred_word(lang):
    glossary = (DOCS / lang / "glossary.md").read_text(encoding="utf-8")
    assert [word for word in TERMS[lang] if word not in glossary] == []


def test_the_check_finds_variants_in_prose_and_ignores_code():
    page = "\n".join(
        [
            "---",
            "keywords: [周期]",  # front matter: not prose
            "---",
            "每个周期结束时，队列就会被清空。",  # line 4: two variants
            "`train_epoch` 与 [链接](performance.md#loss-per-epoch)",  # inline code and a link target
            "```python",
            "epoch = 1  # 数据管线",  # code
            "```",
            "## 每轮 { #loss-per-epoch }",  # a heading id
            "按批大小 32 训练三个 epoch。",  # line 10: two variants
            "十几个小内核；要先重启内核。",  # line 11: a GPU kernel, then a notebook's kernel
        ]
    )
    assert rejected_words(page, "zh") == [
        (4, "周期", "轮"),
        (4, "队列就会被清空", "排空"),
        (10, "epoch", "轮"),
        (10, "批大小", "批量大小"),
        (11, "内核", "核函数"),
    ]


def test_the_page_list_is_not_empty():
    # a wrong DOCS path would make the prose check pass over nothing
    assert all(len(pages(lang)) > 5 for lang in LANGUAGES)
    assert Path(DOCS / "zh" / "glossary.md").is_file()


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if (DOCS / "data" / "comments" / lang).is_dir()])
def test_translated_code_comments_use_the_glossary_terms(lang):
    """Comments shown in the code of a page are read like its prose: same words."""
    hits = []
    for data in sorted((DOCS / "data" / "comments" / lang).glob("*.yml")):
        for english, text in yaml.safe_load(data.read_text(encoding="utf-8")).items():
            for _, found, preferred in rejected_words(text, lang):
                hits.append(f"{data.relative_to(REPO)}: {english!r}: {found!r}, use {preferred!r}")
    assert not hits, "\n".join(hits)
