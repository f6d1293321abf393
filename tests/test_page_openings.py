"""A learner's order: every topic page opens, right under its title, with what the reader will be able to do.

The form is fixed so that it can be checked: the line after the H1 (and a blank line) is the admonition
`!!! abstract "<title>"` with the title below, holding two to four list items, one per skill. A page that reports
measurements opens with what they found instead: its lead paragraph is followed by the findings' box
(FINDINGS_FIRST; tests/test_browser_home.py checks what the reader sees there).
"""

from __future__ import annotations

import pytest

from site_pages import DOCS, LANGUAGES, pages, settings

OPENING_TITLE = {"en": '!!! abstract "What you will be able to do"', "zh": '!!! abstract "读完本页，你将能够"'}
# reference pages that list things (terms, the guides' claims) rather than teach a skill
NOT_TOPIC_PAGES = {"glossary.md", "sources.md", "verification.md"}
# pages that answer with measurements: they open with what was found, a box written from the records
FINDINGS_FIRST = {"mnist.md": '!!! success "'}


def topic_pages(lang: str) -> list[str]:
    return [p.name for p in pages(lang) if p.name not in NOT_TOPIC_PAGES]


def opening_problem(text: str, lang: str, findings: str | None = None) -> str | None:
    """What is wrong with the opening of a page's Markdown, or None if it opens with the block (or, for a page
    that opens with its findings, with one paragraph and then the findings' box)."""
    lines = text.splitlines()
    start = lines.index("---", 1) + 1 if lines and lines[0] == "---" else 0  # past the front matter
    h1 = next((k for k in range(start, len(lines)) if lines[k].startswith("# ")), None)
    if h1 is None:
        return "no H1 title"
    if findings is not None:
        paragraphs = "\n".join(lines[h1 + 1 :]).strip().split("\n\n")
        under_the_lead = len(paragraphs) > 1 and paragraphs[1].startswith(findings)
        return None if under_the_lead else f"{findings} is not under the lead"
    if lines[h1 + 1 : h1 + 3] != ["", OPENING_TITLE[lang]]:
        return f"the line after the title is not {OPENING_TITLE[lang]!r}"
    body = []
    for line in lines[h1 + 3 :]:
        if not line.startswith("    "):
            break
        body.append(line)
    items = [line for line in body if line.startswith("    - ")]
    if any(not (line.startswith("    - ") or line.startswith("      ")) for line in body):
        return "the block holds something other than a list"
    if not 2 <= len(items) <= 4:
        return f"the block lists {len(items)} things; it should list two to four"
    return None


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.every_page
def test_every_topic_page_opens_with_what_the_reader_will_be_able_to_do(lang):
    problems = {}
    for name in topic_pages(lang):
        text = (DOCS / lang / name).read_text(encoding="utf-8")
        if why := opening_problem(text, lang, FINDINGS_FIRST.get(name)):
            problems[name] = why
    assert not problems


def test_the_opening_check_catches_a_page_without_the_block():
    assert opening_problem("# Title\n\nAfter this page you can move tensors.\n", "en")
    assert opening_problem('# Title\n\n!!! abstract "What you will be able to do"\n    - one thing\n', "en")
    assert opening_problem('# 标题\n\n!!! abstract "What you will be able to do"\n    - 一\n    - 二\n', "zh")
    summary = FINDINGS_FIRST["mnist.md"]
    assert opening_problem(f"# Title\n\nWhat was measured.\n\n{summary}\n\nMore.\n", "en", summary) is None
    assert opening_problem(f"# Title\n\nOne.\n\nTwo.\n\n{summary}\n", "en", summary)  # not right under the lead
    good = '---\nkeywords: []\n---\n\n# Title\n\n!!! abstract "What you will be able to do"\n    - one;\n    - two.\n'
    assert opening_problem(good, "en") is None


@pytest.mark.every_page
def test_the_nav_follows_a_learners_order_with_troubleshooting_at_the_top_level():
    # Home, installing, Quick start, the basics, the three parts that go further (a page per question since the
    # split of 2026-11-29; one GPU's speed and memory before several GPUs), the full example; then Troubleshooting on
    # its own, where a reader with an error looks first; then the reference pages, older code first.
    top = [next(iter(entry)) for entry in settings()["nav"]]
    assert top == ["Home", "Install and check your GPU", "Quick start", "Basics", "Performance", "GPU memory",
                   "Several GPUs", "Full example", "Troubleshooting", "Reference"]
    assert next(e["Troubleshooting"] for e in settings()["nav"] if "Troubleshooting" in e) == "troubleshooting.md"
    reference = next(entry["Reference"] for entry in settings()["nav"] if "Reference" in entry)
    assert next(iter(reference[0].values())) == "legacy.md"
