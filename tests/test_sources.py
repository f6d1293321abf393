"""The sources page: guides.yml matches the seed guides, every section is covered, every erratum is pinned by a
real test and a shown snippet, the errata and the sections that show their truth link to each other in both
languages, and the loader refuses malformed data with one line naming the file and the field."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
import yaml
from mkdocs.exceptions import PluginError

import sources
from site_pages import DOCS, LANGUAGES, REPO, fences, page_code_digest, pages

SEEDS = REPO.parent / "shared" / "seeds"
DATA = DOCS / "data"
GUIDES = yaml.safe_load((DATA / "guides.yml").read_text(encoding="utf-8"))
NUMBERS = [g["number"] for g in GUIDES]
no_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the seed guides are not at hand ({SEEDS} is absent)")


@pytest.fixture(scope="module")
def data() -> dict:
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


READERS = {
    "000": numbered_headings,
    "001": standalone_headings,
    "002": markdown_headings,
    "003": markdown_headings,
    "004": numbered_headings,
}


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


# ---- (b) every section is covered, and every erratum is pinned by a real test and a shown snippet ----------


def test_every_section_is_covered(data):
    covered = {(e["guide"], e["section"]) for e in data["coverage"]}
    assert [(g["number"], s) for g in GUIDES for s in g["sections"] if (g["number"], s) not in covered] == []


def test_pytest_collects_every_erratum_test(data, request):
    # the one place that answers "does this erratum's test exist?": pytest's own collection of the named ids, this
    # run's when it collected them all, else a collection of just those
    ids = sorted({test for e in data["errata"] for test in e["tests"]})
    assert ids, "no errata"
    collected = {item.nodeid.split("[", 1)[0] for item in request.session.items}
    if not set(ids) <= collected:
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *ids],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        collected = {line.split("[", 1)[0] for line in result.stdout.splitlines() if "::" in line}
    # an id with a parameter names that one case; an id without names the test, every case of it
    assert all(i in collected if "[" in i else any(c.split("[", 1)[0] == i for c in collected) for i in ids), (
        sorted(i for i in ids if i not in {c.split("[", 1)[0] for c in collected} | collected))


def test_every_erratum_has_a_marked_test_and_every_mark_names_an_erratum(data):
    # the mark is the only link between an erratum and its test: an erratum no test pins, or a mark left on a test
    # after its erratum went (or with a misspelt id), fails here
    ids = {e["id"] for e in data["errata"]}
    marks = sources.erratum_marks(REPO)
    assert sorted(ids - set(marks)) == [], "errata that no test marks with @pytest.mark.erratum(id)"
    assert {test: id_ for id_, tests in marks.items() if id_ not in ids for test in tests} == {}, "marks of no erratum"


def test_every_erratum_snippet_is_shown_on_a_page_in_both_languages(data):
    shown = {lang: "".join(p.read_text(encoding="utf-8") for p in (DOCS / lang).glob("*.md")) for lang in LANGUAGES}
    missing = [(lang, e["id"]) for e in data["errata"] for lang in LANGUAGES if f'"{e["snippet"]}' not in shown[lang]]
    assert missing == []


# ---- (c) malformed data: one line naming the file and the field ---------------------------------------------


@pytest.fixture
def scratch(tmp_path) -> Path:
    """A repository to break: its own copy of the sources data, the real pages, snippets and schemas."""
    data = tmp_path / "docs" / "data"
    data.mkdir(parents=True)
    for name in ("guides.yml", "coverage", "errata", "text"):
        source = DATA / name
        shutil.copytree(source, data / name) if source.is_dir() else shutil.copy(source, data / name)
    for schema in DATA.glob("*.schema.json"):
        (data / schema.name).symlink_to(schema)
    for name in LANGUAGES:
        (tmp_path / "docs" / name).symlink_to(DOCS / name)
    (tmp_path / "snippets").symlink_to(REPO / "snippets")
    return tmp_path


TITLE = "  title: {en: a title, zh: 一个标题}\n"
ERRATUM = (
    "- id: broken-entry\n" + TITLE + "  guide: '003'\n  section: 计算设备\n  anchor: naming-a-device\n"
    "  claim: {en: x, zh: x}\n  truth: {en: y, zh: y}\n  snippet: snippets/devices/device_objects.py\n"
)
BROKEN = {  # case: (file, its new text or a (old, new) replacement, what the one-line message must say)
    "not-yaml": ("errata/devices.yml", "- {id: broken, guide: '002'\n", "errata/devices.yml: not valid YAML"),
    "missing-truth": ("errata/devices.yml", ERRATUM.replace("  truth: {en: y, zh: y}\n", ""), "field '0.truth'"),
    "empty-claim": ("errata/devices.yml", ERRATUM.replace("{en: x, zh: x}", "{en: x, zh: ' '}"), "field '0.claim.zh'"),
    "missing-title": ("errata/devices.yml", ERRATUM.replace(TITLE, ""), "field '0.title'"),
    "title-in-english-only": ("errata/devices.yml", ERRATUM.replace(", zh: 一个标题", ""), "field '0.title.zh'"),
    "empty-title": ("errata/devices.yml", ERRATUM.replace("{en: a title,", "{en: '',"), "field '0.title.en'"),
    "title-not-chinese": ("errata/devices.yml", ERRATUM.replace("zh: 一个标题", "zh: a title"), "field '0.title.zh'"),
    "unquoted-guide": ("errata/devices.yml", ERRATUM.replace("'003'", "3"), "field '0.guide'"),
    "unknown-field": ("errata/devices.yml", ERRATUM + "  page: devices.md\n", "field '0.page'"),
    "test-in-the-erratum": ("errata/devices.yml", ERRATUM + "  test: tests/test_x.py::test_x\n", "field '0.test'"),
    "id-of-a-heading": ("errata/devices.yml", ERRATUM.replace("broken-entry", "errata-002"), "field '0.id'"),
    "unknown-section": ("errata/devices.yml", ERRATUM.replace("计算设备", "没有这一节"), "field '0.section'"),
    "missing-snippet": ("errata/devices.yml", ERRATUM.replace("device_objects", "nothing"), "field '0.snippet'"),
    "duplicate-id": ("errata/devices.yml", ERRATUM + ERRATUM, "field 'id'"),
    "no-such-page": ("errata/no-such-page.yml", "[]\n", "errata/no-such-page.yml: the file name names no page"),
    "coverage-anchor-missing": ("coverage/devices.yml", (", anchor: which-gpu}", "}"), "field '1.anchor'"),
    "guide-title-one-language": ("guides.yml", ("    zh: GPU 计算（", "    de: GPU 计算（"), "field '0.title."),
    "section-uncovered": ("coverage/devices.yml", ("1. 计算设备", "2. Tensor 的 GPU 计算"), "section “1. 计算设备”"),
    "text-keys-differ": ("text/zh/sources.yml", ("\nclaim:", "\nclaims:"), "text/zh/sources.yml: field 'claim'"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_malformed_data_fails_with_one_line_naming_file_and_field(scratch, case):
    name, change, expected = BROKEN[case]
    path = scratch / "docs" / "data" / name
    if isinstance(change, tuple):
        text = path.read_text(encoding="utf-8")
        assert change[0] in text, "the case no longer changes anything"
        change = text.replace(change[0], change[1])
    path.write_text(change, encoding="utf-8")
    with pytest.raises(PluginError) as error:
        sources.load(scratch)
    message = str(error.value)
    assert "\n" not in message.strip() and expected in message and f"docs/data/{name.split('/')[0]}" in message


def test_the_scratch_copy_loads_unchanged(scratch):
    # the cases above fail for what they change, not for the copy
    assert sources.load(scratch)["errata"]


def test_a_missing_heading_for_a_back_link_names_the_erratum_file(data):
    page = "# Tensors on devices\n\n## Some other heading { #elsewhere }\n"
    with pytest.raises(PluginError, match=r"^docs/data/errata/tensors\.yml: field 'anchor': docs/en/tensors\.md"):
        sources.link_back(page, "tensors.md", "en", data)


# ---- (d) the built pages: the sources page lists everything, errata and their sections link both ways ---


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


def built_html(site: Path, lang: str, page: str) -> str:
    return (site / ("" if lang == LANGUAGES[0] else lang) / Path(page).stem / "index.html").read_text(encoding="utf-8")


def built_page(site: Path, lang: str, page: str = "sources.md") -> _Text:
    parser = _Text()
    parser.feed(built_html(site, lang, page))
    return parser


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sources_page_lists_every_erratum_and_links_to_where_it_is_shown(built_site, data, lang):
    page = built_page(built_site, lang)
    assert data["errata"], "no errata"
    for e in data["errata"]:
        assert e["id"] in page.ids, e["id"]
        for key in ("claim", "truth"):
            assert _plain(sources._flow(e[key][lang], lang)) in page.text, (e["id"], key)
        assert e["tests"] and all(test in page.text for test in e["tests"]) and e["snippet"] in page.text, e["id"]
        assert f"../{Path(e['page']).stem}/#{e['anchor']}" in page.hrefs, e["id"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sources_page_lists_every_guide_and_its_coverage(built_site, data, lang):
    page = built_page(built_site, lang)
    for guide in GUIDES:
        assert guide["title"][lang] in page.text
        assert f"coverage-{guide['number']}" in page.ids
        for section in guide["sections"]:
            assert " ".join(section.replace("`", "").split()) in page.text, (guide["number"], section)
    for entry in data["coverage"]:
        assert f"../{Path(entry['page']).stem}/#{entry['anchor']}" in page.hrefs, entry


def words(lang: str) -> dict[str, str]:
    return yaml.safe_load((DATA / "text" / lang / "sources.yml").read_text(encoding="utf-8"))


def section_of(built: str, anchor: str) -> str:
    """A built page's HTML from the heading with that id up to the next heading."""
    start = built.index(f'id="{anchor}"')
    return re.split(r"<h[1-6][ >]", built[start:], maxsplit=1)[0]


def _html_text(fragment: str) -> str:
    parser = _Text()
    parser.feed(fragment)
    return html.unescape(parser.text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_section_that_shows_the_truth_links_back_to_the_erratum(built_site, data, lang):
    for e in data["errata"]:
        section = section_of(built_html(built_site, lang, e["page"]), e["anchor"])
        assert f'href="../sources/#{e["id"]}"' in section, (e["page"], e["anchor"], e["id"])
        assert words(lang)["corrects"].format(guide=e["guide"]) in html.unescape(section), (e["page"], e["anchor"])


# ---- (e) errata have titles in both languages; a reader meets an erratum by its title, never by its id ----------

HAN = re.compile(r"[\u3400-\u9fff]")


def test_every_erratum_has_a_title_in_each_language(data):
    # the schema requires it (the malformed-data cases above break it); this is what the data holds
    assert data["errata"], "no errata"
    for e in data["errata"]:
        assert sorted(e["title"]) == sorted(LANGUAGES), e["id"]
        assert all(e["title"][lang].strip() for lang in LANGUAGES), e["id"]
        assert HAN.search(e["title"]["zh"]) and e["title"]["en"] != e["title"]["zh"], e["id"]
        assert e["id"] not in e["title"]["en"], e["id"]


def test_no_erratum_id_is_visible_on_any_built_page(built_site, data):
    # an id may be an anchor (id="…", href="…#…"), never text a reader sees: headings, links, tables, the search's
    # own copy of the text (built from the same HTML) included
    ids = re.compile(r"(?<![\w-])(" + "|".join(re.escape(e["id"]) for e in data["errata"]) + r")(?![\w-])")
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) > 20, "the built site has too few pages"
    shown = {}
    for path in pages:
        if found := sorted(set(ids.findall(_html_text(path.read_text(encoding="utf-8"))))):
            shown[path.relative_to(built_site).as_posix()] = found
    indexes = sorted(built_site.rglob("search_index.json"))
    assert indexes, "the built site has no search index"
    for path in indexes:
        for doc in json.loads(path.read_text(encoding="utf-8"))["docs"]:
            text = _html_text(f"<p>{doc['title']}</p><div>{doc['text']}</div>")
            if found := sorted(set(ids.findall(text))):
                shown[f"{path.relative_to(built_site).as_posix()}: {doc['location']}"] = found
    assert shown == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_line_under_a_heading_names_the_erratum_in_the_page_language(built_site, data, lang):
    # "Corrects guide 003: <title>", each word in the page's language, the title a link to the erratum's details
    other = [words(x)["corrects"].split("{", 1)[0].strip() for x in LANGUAGES if x != lang]
    for e in data["errata"]:
        section = section_of(built_html(built_site, lang, e["page"]), e["anchor"])
        link = re.search(rf'<a href="\.\./sources/#{re.escape(e["id"])}">(.*?)</a>', section, re.S)
        assert link, (lang, e["id"])
        assert _html_text(link.group(1)) == _plain(sources._escape(e["title"][lang])), (lang, e["id"])
        line = re.search(r"<p[^>]*>(?:(?!</p>).)*" + re.escape(link.group(0)), section, re.S).group(0)
        text, title, corrects = _html_text(line + "</p>"), _html_text(link.group(1)), words(lang)["corrects"]
        assert corrects.format(guide=e["guide"]) in text.rsplit(title, 1)[0][-40:], (lang, e["id"], text)
        assert not any(o and o in text for o in other), (lang, e["id"], text)
    assert not HAN.search(words("en")["corrects"]) and HAN.search(words("zh")["corrects"])


class _ErrataTable(HTMLParser):
    """The sources page's errata: the table's rows (cell texts, links) and the <details> (id, open, summary, text)."""

    def __init__(self):
        super().__init__()
        self.rows: list[dict] = []
        self.details: list[dict] = []
        self.stack: list[str] = []
        self.in_errata = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "h2":  # the errata: their table, then each in full under a heading of its own
            self.in_errata = attrs.get("id") in ("errata", "errata-in-full")
        if not self.in_errata:
            return
        self.stack.append(tag)
        if tag == "tr" and "tbody" in self.stack:
            self.rows.append({"cells": [], "hrefs": []})
        elif tag == "td" and self.rows:
            self.rows[-1]["cells"].append("")
        elif tag == "a" and "td" in self.stack and self.rows:
            self.rows[-1]["hrefs"].append(attrs.get("href"))
        elif tag == "details":
            self.details.append({"id": attrs.get("id"), "class": attrs.get("class"), "open": "open" in attrs,
                                 "summary": "", "text": ""})

    def handle_endtag(self, tag):
        if self.in_errata and tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, d):
        if not self.in_errata:
            return
        # text parts joined by a space, as _Text joins them, so that _plain() of the data reads the same
        if "td" in self.stack and self.rows:
            self.rows[-1]["cells"][-1] += " " + d
        if "details" in self.stack:
            self.details[-1]["summary" if "summary" in self.stack else "text"] += " " + d


@pytest.mark.parametrize("lang", LANGUAGES)
def test_sources_page_has_one_row_per_erratum_and_its_details_folded(built_site, data, lang):
    page = _ErrataTable()
    page.feed(built_html(built_site, lang, "sources.md"))
    flat = lambda text: " ".join(html.unescape(text).split())  # noqa: E731
    rows = {row["hrefs"][0]: row for row in page.rows if row["hrefs"]}
    assert len(page.rows) == len(rows) == len(data["errata"])
    details = {d["id"]: d for d in page.details}
    assert len(page.details) == len(details) == len(data["errata"])
    for e in data["errata"]:
        title = _plain(sources._escape(e["title"][lang]))
        row = rows[f"#{e['id']}"]  # the title links to the erratum's details
        section = " ".join(e["section"].replace("`", "").split())  # "1. 计算设备" alone would be a list to _plain()
        assert [flat(c) for c in row["cells"]] == [f"{e['guide']} · {section}", title]
        folded = details[e["id"]]
        assert folded["class"] == "note" and not folded["open"], e["id"]
        assert flat(folded["summary"]) == title, e["id"]
        for key in ("claim", "truth"):
            assert _plain(sources._flow(e[key][lang], lang)) in flat(folded["text"]), (e["id"], key)


# ---- the glossary links the same places in both languages (MkDocs' validation checks the targets) -------

LINK = re.compile(r"\]\(([\w./-]+\.md)(?:#([\w-]+))?\)")


def test_glossary_links_the_same_headings_in_both_languages():
    targets = {lang: LINK.findall((DOCS / lang / "glossary.md").read_text(encoding="utf-8")) for lang in LANGUAGES}
    assert targets["en"], "the glossary links to no page"
    assert targets["en"] == targets["zh"]


# ---- what ran where: the claims of verification on the sources page, Home and the pages ----------------------
# The sources page, Home and the Verification page say that the project's only GPU run used torch 2.11.0 at an
# older commit, and they (and the admonitions of the pages added since) name what has not run on a GPU. The
# committed verification records are the source: these tests fail when a new record makes a sentence stale.

RECORDS = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((DATA / "verification").glob("*.json"))]
GPU_RECORDS = [r for r in RECORDS if r["device_type"] != "cpu"]
NOT_RUN_ON_A_GPU = {"en": "not run on a GPU yet", "zh": "还没有在 GPU 上运行过"}


def ran_on_a_gpu(page: str) -> bool:
    """Whether any GPU record ran docs/<lang>/<page> (in any version)."""
    return any(page in r["pages"] for r in GPU_RECORDS)


def has_code(lang: str, name: str) -> bool:
    return any(f.runs for f in fences((DOCS / lang / name).read_text(encoding="utf-8")))


def says_not_run(page) -> bool:
    """Whether one of the page's admonitions (indented four spaces) says its GPU block has not run on a GPU."""
    return any(NOT_RUN_ON_A_GPU[page.lang] in line for line in page.text().splitlines() if line.startswith("    "))


def test_the_only_gpu_run_is_the_one_the_pages_describe():
    assert [(r["date"][:10], r["device_name"], r["torch_version"], r["cuda_device_count"]) for r in GPU_RECORDS] == [
        ("2026-11-22", "NVIDIA H100 80GB HBM3", "2.11.0+cu130", 1)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_sources_page_names_the_pages_that_ran_on_a_gpu(lang):
    # "... whose pages with code were <these>; the code of every other page has not run on any GPU"
    text = (DOCS / lang / "sources.md").read_text(encoding="utf-8")
    paragraph = next(p for p in text.split("\n\n") if "2.11.0" in p)
    assert "H100" in paragraph and "2026-11-22" in paragraph and "2.14.1" in paragraph
    listed = set(re.findall(r"\]\(([a-z-]+\.md)\)", paragraph)) - {"verification.md"}
    ran = {p.name for p in pages(lang) if ran_on_a_gpu(f"docs/{lang}/{p.name}")}
    assert listed == ran
    assert all(has_code(lang, name) for name in ran)


@pytest.mark.parametrize("page", [p for p in pages() if says_not_run(p)], ids=lambda p: f"{p.lang}/{p.name}")
def test_a_page_that_says_its_gpu_block_has_not_run_has_no_gpu_record_of_it(page):
    assert not any(r.get("page_digests", {}).get(f"docs/{page.lang}/{page.name}") == page_code_digest(page.path)
                   for r in GPU_RECORDS)
    if not ran_on_a_gpu(f"docs/{page.lang}/{page.name}"):
        return
    # a page that did run once (an older version of it): only its blocks added since may say so
    # (devices.md: its multiprocessing section, added 2026-11-25, after the H100 run)
    assert page.name in {"performance.md", "multi-gpu.md", "devices.md"}, page.name


def test_no_block_that_needs_two_gpus_has_run():
    # the sources page, Home and the Verification page say so
    assert max((r["cuda_device_count"] for r in RECORDS), default=0) < 2
