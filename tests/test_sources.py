"""The sources page: guides.yml matches the seed guides, every section is covered, every erratum is
pinned by a real test, and the build refuses data that breaks these rules."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
import yaml

import sources
from conftest import copy_of_repo, mkdocs_build
from docs_pages import DOCS, LANGUAGES, REPO

SEEDS = REPO.parent / "shared" / "seeds"
DATA = DOCS / "data"
GUIDES = yaml.safe_load((DATA / "guides.yml").read_text(encoding="utf-8"))
NUMBERS = [g["number"] for g in GUIDES]
no_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the seed guides are not at hand ({SEEDS} is absent)")


@pytest.fixture(scope="module")
def data() -> sources.Sources:
    return sources.load(REPO)


# ---- reading the seed guides -------------------------------------------------------------------
# The seeds are plain-text copies of web pages, each in its own shape, so each gets its own reader.

MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
NOTEBOOK_CELL = re.compile(r"^In \[\d*\]:\s*$")
NUMBERED = re.compile(r"^\d+(?:\.\d+)*\.?\s+\S")
SENTENCE_MARKS = set(",，。:：;；!！?？=")


def markdown_headings(text: str) -> list[str]:
    """`#` headings, skipping ``` fences and the code cells of a notebook export (`In [n]:` to a blank line)."""
    found, fence, cell = [], False, False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if NOTEBOOK_CELL.match(line):
            cell = True
            continue
        if cell and not line.strip():
            cell = False
        if fence or cell:
            continue
        if m := MD_HEADING.match(line):
            found.append(m.group(2))
    return found


def numbered_headings(text: str) -> list[str]:
    """Headings written as unindented `1. Title` / `2.1 Title` lines (indented ones are list items)."""
    return [line.strip() for line in text.splitlines() if NUMBERED.match(line)]


def standalone_headings(text: str) -> list[str]:
    """A repost without markup: in the article body, the one-line paragraphs that are not sentences or code.

    The body runs from the repost's "记得点赞" line to "原文链接"; an addendum starts with "补充:".
    """
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "记得点赞" in line) + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("原文链接"))
    paragraphs: list[list[str]] = [[]]
    for line in lines[start:end]:
        if line.strip():
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    found = []
    for para in paragraphs:
        if len(para) != 1 or para[0] != para[0].lstrip():
            continue
        line = para[0].strip()
        if re.fullmatch(r"[\d?]+", line):
            continue  # line numbers and "?" left over from the copied code viewer
        if re.match(r"补充[:：]", line) or not SENTENCE_MARKS & set(line):
            found.append(line)
    return found


READERS = {"000": numbered_headings, "001": standalone_headings, "002": markdown_headings,
           "003": markdown_headings, "004": numbered_headings}


def seed(number: str) -> Path:
    (path,) = SEEDS.glob(f"{number}_*.txt")
    return path


def test_the_readers_find_headings_and_skip_code():
    text = "# Title\n\n```python\n# a comment\n```\n\n## 1 One\n\nIn [3]:\n# cell comment\nx\n\n### 1.1 Two\n"
    assert markdown_headings(text) == ["Title", "1 One", "1.1 Two"]
    assert numbered_headings("1. 甲\n  1. list item\n2.1 乙\nprint(1) # 2\n") == ["1. 甲", "2.1 乙"]


# ---- (a) guides.yml lists every guide and every section of it --------------------------------------


@no_seeds
def test_guides_yml_lists_each_seed_guide():
    assert sorted(p.name.split("_", 1)[0] for p in SEEDS.glob("*.txt")) == NUMBERS


@no_seeds
@pytest.mark.parametrize("number", NUMBERS)
def test_guides_yml_lists_every_section_of_the_guide(number):
    guide = next(g for g in GUIDES if g["number"] == number)
    found = READERS[number](seed(number).read_text(encoding="utf-8"))
    if found and found[0] == guide["title"]["zh"]:
        found = found[1:]  # the guide's own title heading
    assert guide["sections"] == found


@no_seeds
@pytest.mark.parametrize("number", NUMBERS)
def test_titles_are_quoted_verbatim(number):
    guide = next(g for g in GUIDES if g["number"] == number)
    lines = {line.strip().lstrip("#").strip() for line in seed(number).read_text(encoding="utf-8").splitlines()}
    assert (guide["title"]["zh"] in lines) == guide["title_in_source"]


def test_every_guide_has_both_languages():
    for guide in GUIDES:
        for key in ("title", "origin"):
            assert all(str(guide[key].get(lang, "")).strip() for lang in LANGUAGES), (guide["number"], key)


# ---- (b) every section is covered; removing coverage breaks the build ------------------------------


def test_the_data_has_no_problems(data):
    assert data.problems == []


def test_every_section_has_coverage_in_both_languages(data):
    covered = {(sources.guide_number(e.get("guide")), data.section_of(sources.guide_number(e.get("guide")),
                                                                        e.get("section"))) for e in data.coverage}
    missing = [(g["number"], s) for g in GUIDES for s in g["sections"] if (g["number"], s) not in covered]
    assert missing == []


def _rewrite(path: Path, entries: list) -> None:
    path.write_text(yaml.safe_dump(entries, allow_unicode=True, sort_keys=False), encoding="utf-8")


def test_a_section_without_coverage_fails_the_build(tmp_path, data):
    copy = copy_of_repo(tmp_path / "repo")
    guide, section = GUIDES[0]["number"], GUIDES[0]["sections"][0]
    removed = 0
    for path in sorted((copy / "docs" / "data" / "coverage").glob("*.yml")):
        entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        kept = [e for e in entries if not (sources.guide_number(e.get("guide")) == guide
                                           and data.section_of(guide, e.get("section")) == section)]
        removed += len(entries) - len(kept)
        _rewrite(path, kept)
    assert removed, "the section had no coverage to begin with"
    result = mkdocs_build(tmp_path / "site", cwd=copy)
    assert result.returncode != 0
    assert f"guide {guide}, section “{section}” is covered by no page" in result.stderr
    assert "docs/data/guides.yml" in result.stderr


def test_coverage_of_a_missing_heading_fails_the_build(tmp_path):
    copy = copy_of_repo(tmp_path / "repo")
    (copy / "docs" / "data" / "coverage" / "zz-broken.yml").write_text(
        '- {guide: "002", section: 1 .cuda() 方法, page: devices.md, anchor: no-such-heading}\n', encoding="utf-8"
    )
    result = mkdocs_build(tmp_path / "site", cwd=copy)
    assert result.returncode != 0
    assert "docs/data/coverage/zz-broken.yml, entry 1" in result.stderr
    assert "no-such-heading" in result.stderr


# ---- (c) every erratum is pinned by a real test ----------------------------------------------------


def test_every_erratum_names_an_existing_test_function(data):
    unresolved = {e.where: why for e in data.errata if (why := sources.unresolved_test(REPO, str(e.get("test"))))}
    assert unresolved == {}


def test_pytest_collects_every_erratum_test(data):
    ids = sorted({str(e.get("test")) for e in data.errata})
    assert ids, "no errata"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *ids],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    collected = {line.split("[", 1)[0] for line in result.stdout.splitlines() if "::" in line}
    assert set(ids) <= collected


def test_every_erratum_snippet_is_shown_on_a_page(data):
    shown = "".join((DOCS / lang).joinpath(p.name).read_text(encoding="utf-8")
                    for lang in LANGUAGES for p in (DOCS / lang).glob("*.md"))
    missing = [e.where for e in data.errata if f'"{str(e.get("snippet")).split(":", 1)[0]}' not in shown]
    assert missing == []


# ---- (d) the built page lists the guides, the coverage and every erratum ---------------------------


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])

    def handle_data(self, d):
        self.parts.append(d)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def _plain(md_text: str) -> str:
    """What a Markdown fragment reads as once rendered."""
    parser = _Text()
    parser.feed(markdown.markdown(md_text))
    return html.unescape(parser.text)


def built_page(site: Path, lang: str) -> _Text:
    page = site / ("" if lang == "en" else lang) / "sources" / "index.html"
    parser = _Text()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sources_page_lists_every_erratum(built_site, data, lang):
    page = built_page(built_site, lang)
    assert data.errata, "no errata"
    for e in data.errata:
        eid = str(e.get("id"))
        assert eid in page.ids, eid
        for key in ("claim", "truth"):
            assert _plain(sources._flow(e.get(key)[lang], lang)) in page.text, (eid, key)
        assert str(e.get("test")) in page.text and str(e.get("snippet")) in page.text, eid


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sources_page_lists_every_guide_and_its_coverage(built_site, data, lang):
    page = built_page(built_site, lang)
    for guide in GUIDES:
        assert guide["title"][lang] in page.text
        assert f"coverage-{guide['number']}" in page.ids
        for section in guide["sections"]:
            assert " ".join(section.replace("`", "").split()) in page.text, (guide["number"], section)
    for entry in data.coverage:
        target = f"../{Path(entry.get('page')).stem}/#{entry.get('anchor')}"
        assert target in page.hrefs, entry.where


# ---- (e) malformed data fails the build, naming the file ---------------------------------------------

BROKEN = {
    "not-yaml": "- {id: broken, guide: '002'\n",
    "missing-truth": (
        "- id: broken-entry\n  guide: '002'\n  section: 2 .to(device) 方法\n  claim: {en: x, zh: x}\n"
        "  snippet: snippets/devices/version.py\n"
        "  test: tests/test_devices.py::test_cuda_and_cuda_0_are_different_devices\n"
    ),
    "unknown-test": (
        "- id: broken-entry\n  guide: '002'\n  section: 2 .to(device) 方法\n  claim: {en: x, zh: x}\n"
        "  truth: {en: y, zh: y}\n  snippet: snippets/devices/version.py\n  test: tests/test_devices.py::test_nothing\n"
    ),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_malformed_errata_file_fails_the_build(tmp_path, case):
    copy = copy_of_repo(tmp_path / "repo")
    (copy / "docs" / "data" / "errata" / "zz-broken.yml").write_text(BROKEN[case], encoding="utf-8")
    result = mkdocs_build(tmp_path / "site", cwd=copy)
    assert result.returncode != 0
    assert "docs/data/errata/zz-broken.yml" in result.stderr
    if case == "missing-truth":
        assert "lacks truth" in result.stderr
    if case == "unknown-test":
        assert "test_nothing" in result.stderr


# ---- the glossary's links lead to real headings in both languages -----------------------------------

LINK = re.compile(r"\]\(([\w./-]+\.md)(?:#([\w-]+))?\)")


def test_glossary_links_resolve_in_both_languages(data):
    targets = {lang: LINK.findall((DOCS / lang / "glossary.md").read_text(encoding="utf-8")) for lang in LANGUAGES}
    assert targets["en"], "the glossary links to no page"
    assert targets["en"] == targets["zh"]
    for page, anchor in targets["en"]:
        for lang in LANGUAGES:
            ids = data.headings(lang, page)
            assert ids is not None, f"docs/{lang}/{page} does not exist"
            assert not anchor or anchor in ids, f"docs/{lang}/{page} has no heading #{anchor}"
