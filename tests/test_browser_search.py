"""Search stays in the page's language: Material's search box in Chromium on each language's home page, and
the built index it reads (docs/hooks/search_index.py, docs/hooks/search_in_language.js)."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

import pytest
import yaml

from browser import Recorder
from site_pages import LANGUAGES, REPO, Page, pages

pytest_plugins = ["browser"]

# JS: what the search shows under the box is Material's line for `key` (search.result.none: no matching
# documents; search.result.placeholder: type to start searching) and no result items
SEARCH_SAYS_JS = """
key => !document.querySelector(".md-search-result__item")
  && document.querySelector(".md-search-result__meta").textContent.trim()
     === JSON.parse(document.getElementById("__config").textContent).translations[key]
"""
# JS: Material has answered the query in the box: result items, or its "no matching documents" line
ANSWERED_JS = f"""
() => document.querySelectorAll(".md-search-result__item").length > 0 || ({SEARCH_SAYS_JS})("search.result.none")
"""


def search(page, query: str, *, allow_none: bool = False) -> list[str]:
    """Type query into Material's search box; the result pages' URL paths (no query, no fragment), in order.

    Material reacts to key events on the input; insert_text() (needed for CJK) sends none, so a key press
    follows it. A query left in the box by an earlier search is cleared first, and its results waited
    away, so that the paths returned are this query's. Material sends a query typed before its index has
    loaded once it has, so the wait for an answer covers the index too. No result fails unless allow_none.
    """
    box = page.locator("input[data-md-component=search-query]")
    if not box.evaluate("box => box === document.activeElement"):  # still there after an earlier search
        box.click()
    if box.input_value():
        box.fill("")
        page.keyboard.press("End")
        page.wait_for_function(SEARCH_SAYS_JS, arg="search.result.placeholder")
    page.keyboard.insert_text(query)
    page.keyboard.press("End")
    meta = page.locator(".md-search-result__meta")
    try:
        page.wait_for_function(ANSWERED_JS)
    except Exception as err:  # playwright's TimeoutError: say what the search said instead
        raise AssertionError(f"search for {query!r} did not answer; it said: {meta.inner_text().strip()!r}") from err
    # one item per page, its first link being the page itself, the others its sections
    paths = page.eval_on_selector_all(
        ".md-search-result__item", "items => items.map(li => new URL(li.querySelector('a').href).pathname)"
    )
    if not paths and not allow_none:
        raise AssertionError(f"search for {query!r} showed no results; it said: {meta.inner_text().strip()!r}")
    return paths


def lang_of(path: str) -> str:
    """Language of a URL path ("/zh/devices/" -> "zh", "/devices/" -> the default language)."""
    return next((lang for lang in LANGUAGES[1:] if path.startswith(f"/{lang}/")), LANGUAGES[0])


def result_path(lang: str, name: str) -> str:
    return "/" + Page(lang, name).url


@pytest.fixture(scope="session")
def home(new_context, origin):
    """Each language's home page, loaded once and searched by every test (a search clears the one before);
    with a Recorder attached from the start, so what it requested while loading and searching is known.
    A context each: a page left behind another in its window gets its timers throttled, and searches slow."""

    @functools.cache
    def load(lang: str):
        page = new_context().new_page()
        rec = Recorder(page)
        page.goto(f"{origin}/{Page(lang, 'index.md').url}")
        return page, rec

    return load


@dataclass(frozen=True)
class SearchCase:
    lang: str  # the query's language; the search is typed on that language's home page
    query: str
    first: str | None  # page (under docs/<lang>/) that must come first; None: any page of that language


# Real questions against real content, each with the page that must come first where one must.
SEARCH_CASES = [
    SearchCase("en", "nvidia-smi", "devices.md"),
    SearchCase("en", "torch.accelerator", None),  # devices, device-agnostic and multi-gpu all teach it
    SearchCase("en", "DataParallel", "multi-gpu.md"),  # teaches DDP instead and links to legacy.md, listed second
    SearchCase("en", "CUDA_VISIBLE_DEVICES", "multi-gpu.md"),
    SearchCase("en", "pinned memory", "performance.md"),
    SearchCase("en", "MNIST timings", "mnist.md"),  # the Chinese MNIST page came first once
    SearchCase("en", "move model to gpu", "modules.md"),  # the glossary came first once
    SearchCase("zh", "计算设备", "devices.md"),
    SearchCase("zh", "锁页内存", "performance.md"),
    SearchCase("zh", "显存", None),
    SearchCase("zh", "设备", None),
    SearchCase("zh", "CUDA_VISIBLE_DEVICES", "multi-gpu.md"),  # the English page came first once
    SearchCase("zh", "怎么把模型放到GPU上", "modules.md"),  # found nothing once: Material's own cut of it
    SearchCase("zh", "查看显卡数量", "devices.md"),  # the performance page came first once
]


@pytest.mark.parametrize("case", SEARCH_CASES, ids=[f"{c.lang}:{c.query}" for c in SEARCH_CASES])
def test_search_finds_the_page_in_the_query_language(home, case):
    page, _ = home(case.lang)
    results = search(page, case.query)
    # one index holds both languages (mkdocs-static-i18n merges them); a search lists its page's only
    other = [r for r in results if lang_of(r) != case.lang]
    assert not other, f"{case.query!r} on the {case.lang} site lists other languages' pages: {other}"
    if case.first:
        want = result_path(case.lang, case.first)
        assert results[0] == want, f"{case.query!r}: expected {want} first, got {results}"


# Reader questions, each with the page that answers it (tests/data/search_questions.yml). A question counts
# as answered when that page is among the first SEARCH_TOP results; each language must answer SEARCH_TARGET.
SEARCH_QUESTIONS = yaml.safe_load((REPO / "tests" / "data" / "search_questions.yml").read_text(encoding="utf-8"))
SEARCH_TOP = 3
SEARCH_TARGET = 0.9
SEARCH_MIN_QUESTIONS = 30


@pytest.mark.parametrize("lang", LANGUAGES)
def test_search_answers_reader_questions(home, origin, lang, capsys):
    """Each question typed on the language's home page; prints the share answered and the misses."""
    questions = SEARCH_QUESTIONS.get(lang) or []
    assert len(questions) >= SEARCH_MIN_QUESTIONS, f"{lang}: {len(questions)} questions, want {SEARCH_MIN_QUESTIONS}"
    answers = {row["q"]: [row["page"]] if "page" in row else row["pages"] for row in questions}
    missing = sorted({name for names in answers.values() for name in names if not Page(lang, name).path.is_file()})
    assert not missing, f"search_questions.yml names pages that docs/{lang}/ does not have: {missing}"

    page, rec = home(lang)
    misses = []
    for question, names in answers.items():
        top = search(page, question, allow_none=True)[:SEARCH_TOP]
        if not {result_path(lang, name) for name in names} & set(top):
            misses.append(f"  MISS {question!r}: wanted {' or '.join(names)}, got {top or 'no result'}")
    answered = len(answers) - len(misses)
    share = answered / len(answers)
    report = "\n".join(
        [
            f"search [{lang}]: {answered}/{len(answers)} reader questions answered in the top {SEARCH_TOP}"
            f" ({share:.0%}; target {SEARCH_TARGET:.0%})",
            *misses,
        ]
    )
    with capsys.disabled():  # the share is worth seeing on every run, not only when it falls short
        print("\n" + report)
    assert not rec.outside(origin), f"loading or searching requested outside localhost: {rec.outside(origin)}"
    # the full index is loaded here only (the page tests get it without entries)
    assert not rec.unexpected_errors(page), f"errors while loading or searching: {rec.unexpected_errors(page)}"
    assert share >= SEARCH_TARGET, report


def test_search_index_is_split_by_language(built_site):
    """What the search worker relies on (docs/hooks/search_index.py), read from the built index, no browser:
    every entry says its language, which its location agrees with; the query rules of every language are
    there; front-matter keywords reached their page's entry; notebooks (copies of a page) are left out."""
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    wrong = [(d["location"], d.get("lang")) for d in index["docs"] if d.get("lang") != lang_of("/" + d["location"])]
    assert not wrong, f"entries whose lang is not their location's: {wrong[:10]}"
    assert set(index["config"].get("query", {})) == set(LANGUAGES)
    assert "keywords" in index["config"]["fields"], "the keywords field is not declared in mkdocs.yml"
    with_keywords = {d["location"] for d in index["docs"] if d.get("keywords")}
    for doc in pages():
        text = doc.text()
        front = text.split("\n---\n", 1)[0] if text.startswith("---\n") else ""
        assert ("\nkeywords:" in front) == (doc.url in with_keywords), f"{doc.path}: keywords in the index"
    notebooks = [d["location"] for d in index["docs"] if "notebook" in d["location"]]
    assert not notebooks, f"notebook entries in the search index: {notebooks[:5]}"


# characters that must not reach a reader: the U+200B that separates jieba's words in the index, its
# zero-width relatives, and U+FFFD (text broken in decoding)
INVISIBLE = {"\u200b": "U+200B", "\u200c": "U+200C", "\u200d": "U+200D", "\ufeff": "U+FEFF", "\ufffd": "U+FFFD"}
CLEAN_QUERIES = {"en": ["pinned memory", "device_count"], "zh": ["显存", "怎么把模型放到GPU上", "查看显卡数量"]}
CJK_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_search_results_read_cleanly(home, lang):
    """The result list as rendered: no invisible characters, no heading-id syntax, the language's script, and
    highlights that mark words, not the punctuation next to them ("GPU，")."""
    page, _ = home(lang)
    for query in CLEAN_QUERIES[lang]:
        search(page, query)
        results = page.locator(".md-search-result__list")
        shown = results.inner_text()
        source = results.inner_html()
        found = [name for char, name in INVISIBLE.items() if char in shown or char in source]
        assert not found, f"{query!r}: the results hold {found}:\n{shown[:600]}"
        assert not re.search(r"\{\s*[#.:]", shown), f"{query!r}: attribute-list syntax in the results:\n{shown[:600]}"
        marks = results.locator("mark").evaluate_all("marks => marks.map(m => m.textContent)")  # folded ones too
        odd = [m for m in marks if CJK_PUNCTUATION.search(m) or not m.strip()]
        assert not odd, f"{query!r}: highlights of punctuation or of nothing: {odd}"
        if lang == "zh":
            assert re.search(r"[\u4e00-\u9fff]{2}", shown), f"{query!r}: no Chinese text in the results:\n{shown[:600]}"
