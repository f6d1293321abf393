"""The built site in a real browser (Debian's Chromium driven by Playwright), every page in both languages.

What a reader does: switch language, search, copy code, load a page offline, flip light/dark, open the
menu on a phone; and what axe-core says about each page. Helpers live in browser.py.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import yaml
from playwright.sync_api import expect, sync_playwright

from browser import (
    CHROMIUM_ARGS,
    CLIPBOARD_COPIES_JS,
    COPY_TEXTS_JS,
    NO_CHROMIUM,
    SITEMAP_PROBES_JS,
    DocPage,
    Recorder,
    chromium_executable,
    default_language,
    describe_violations,
    doc_pages,
    fences,
    has_python_fence,
    is_local,
    match_in_order,
    run_axe,
    search,
    serve,
    unexpected_errors,
)
from docs_pages import LANGUAGES, REPO

ARTIFACTS = REPO / "test-artifacts"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SERIOUS = {"serious", "critical"}
# the axe rules whose outcome depends on the colour scheme (run again in the dark scheme)
COLOUR_RULES = ["color-contrast", "link-in-text-block"]

PAGES = doc_pages()
PYTHON_PAGES = [d for d in PAGES if has_python_fence(d.source)]
# every page path, whichever language has it (a page missing in one language fails the switch test)
TOPICS = sorted({d.rel for d in PAGES})
# pages where the language selector is also operated by hand (click the button, then the language)
CLICK_THROUGH = [t for t in ("index.md", "devices.md") if t in TOPICS]


def _ids(docs: list[DocPage]) -> list[str]:
    return [d.id for d in docs]


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def chromium() -> str:
    path = chromium_executable()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{NO_CHROMIUM}; CI must run the browser tests", pytrace=False)
        pytest.skip(NO_CHROMIUM)
    return path


@pytest.fixture(scope="session")
def origin(chromium, built_site) -> Iterator[str]:
    """The built site served on localhost, e.g. http://127.0.0.1:40123 (no trailing slash)."""
    with serve(built_site) as served:
        yield served


@pytest.fixture(scope="session")
def browser(chromium):
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def new_page(browser):
    """A page in a fresh context (own storage, own permissions); closed after the test."""
    contexts = []

    def make(**options):
        context = browser.new_context(**{"viewport": DESKTOP, **options})
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_page):
    return new_page()


def url(origin: str, doc: DocPage) -> str:
    return f"{origin}/{doc.path}"


def lang_of(path: str) -> str:
    """Language of a URL path ("/zh/devices/" -> "zh", "/devices/" -> the default language)."""
    for lang in LANGUAGES:
        if lang != default_language() and path.startswith(f"/{lang}/"):
            return lang
    return default_language()


def is_placeholder(doc: DocPage) -> bool:
    text = doc.source.read_text(encoding="utf-8") if doc.source.exists() else ""
    return "placeholder" in text.lower() and len([ln for ln in text.splitlines() if ln.strip()]) < 5


# --------------------------------------------------------------------------- 1. language switch


def _language_links(page, selector: str) -> dict[str, str]:
    return dict(page.eval_on_selector_all(selector, "els => els.map(e => [e.hreflang, e.href])"))


@pytest.mark.parametrize("rel", TOPICS, ids=[t.removesuffix(".md") for t in TOPICS])
def test_language_switch_leads_to_the_same_page(page, origin, rel):
    """Each language's version of a page links every version (selector and head alternates); following the
    selector from one version to the next lands on it."""
    expected = {lang: url(origin, DocPage(lang, rel)) for lang in LANGUAGES}
    target = expected[LANGUAGES[0]]
    for i, lang in enumerate(LANGUAGES):
        response = page.goto(target)
        assert response is not None and response.ok, f"{target}: HTTP {response and response.status}"
        assert page.url == expected[lang], f"the {lang} link led to {page.url}"
        assert page.evaluate("document.documentElement.lang").startswith(lang)
        selector = _language_links(page, ".md-header .md-select a[hreflang]")
        assert selector == expected, f"{page.url}: language selector links"
        assert _language_links(page, "head link[rel=alternate][hreflang]") == expected, f"{page.url}: alternates"
        target = selector[LANGUAGES[(i + 1) % len(LANGUAGES)]]


def _choose_language(page, lang: str) -> None:
    page.locator(".md-header .md-select button").click()  # opens the list (hovering does too)
    page.locator(f".md-header .md-select a[hreflang={lang}]").click()


@pytest.mark.parametrize("rel", CLICK_THROUGH, ids=[t.removesuffix(".md") for t in CLICK_THROUGH])
def test_language_selector_by_hand(page, origin, rel):
    """Open the header's language menu, pick the other language, land on the same page there; and back."""
    home = DocPage(default_language(), rel)
    page.goto(url(origin, home))
    for lang in LANGUAGES:
        if lang == home.lang:
            continue
        _choose_language(page, lang)
        page.wait_for_url(url(origin, home.other(lang)))
        assert page.evaluate("document.documentElement.lang").startswith(lang)
        _choose_language(page, home.lang)
        page.wait_for_url(url(origin, home))
        assert page.evaluate("document.documentElement.lang").startswith(home.lang)


# --------------------------------------------------------------------------- 2. search


@dataclass(frozen=True)
class SearchCase:
    lang: str  # the query's language; the search is typed on that language's home page
    query: str
    first: str | None  # page (under docs/<lang>/) that must come first; None: any page of that language

    @property
    def id(self) -> str:
        return f"{self.lang}:{self.query}"


# Real questions against real content: adjust as pages are written. A row whose expected page is still a
# placeholder is skipped until the page exists.
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


@pytest.mark.parametrize("case", SEARCH_CASES, ids=[c.id for c in SEARCH_CASES])
def test_search_finds_the_page_in_the_query_language(page, origin, case):
    if case.first and is_placeholder(DocPage(case.lang, case.first)):
        pytest.skip(f"docs/{case.lang}/{case.first} is still a placeholder")
    page.goto(url(origin, DocPage(case.lang, "index.md")), wait_until="networkidle")  # index loaded
    results = search(page, case.query)
    # one index holds both languages (mkdocs-static-i18n merges them); a search lists its page's only
    other = [r for r in results if lang_of(r) != case.lang]
    assert not other, f"{case.query!r} on the {case.lang} site lists other languages' pages: {other}"
    if case.first:
        want = "/" + DocPage(case.lang, case.first).path
        assert results[0] == want, f"{case.query!r}: expected {want} first, got {results}"


# Reader questions, each with the page that answers it (tests/data/search_questions.yml). A question counts
# as answered when that page is among the first SEARCH_TOP results; each language must answer SEARCH_TARGET.
SEARCH_QUESTIONS = yaml.safe_load((REPO / "tests" / "data" / "search_questions.yml").read_text(encoding="utf-8"))
SEARCH_TOP = 3
SEARCH_TARGET = 0.9
SEARCH_MIN_QUESTIONS = 30


@pytest.mark.parametrize("lang", LANGUAGES)
def test_search_answers_reader_questions(page, origin, lang, capsys):
    """Each question typed on the language's home page; prints the share answered and the misses."""
    questions = SEARCH_QUESTIONS.get(lang) or []
    assert len(questions) >= SEARCH_MIN_QUESTIONS, f"{lang}: {len(questions)} questions, want {SEARCH_MIN_QUESTIONS}"
    answers = {row["q"]: [row["page"]] if "page" in row else row["pages"] for row in questions}
    missing = sorted({rel for rels in answers.values() for rel in rels if not DocPage(lang, rel).source.is_file()})
    assert not missing, f"search_questions.yml names pages that docs/{lang}/ does not have: {missing}"

    rec = Recorder.attach(page)
    page.goto(url(origin, DocPage(lang, "index.md")), wait_until="networkidle")
    misses = []
    for question, rels in answers.items():
        top = search(page, question, allow_none=True)[:SEARCH_TOP]
        if not {"/" + DocPage(lang, rel).path for rel in rels} & set(top):
            misses.append(f"  MISS {question!r}: wanted {' or '.join(rels)}, got {top or 'no result'}")
    answered = len(answers) - len(misses)
    share = answered / len(answers)
    report = "\n".join(
        [f"search [{lang}]: {answered}/{len(answers)} reader questions answered in the top {SEARCH_TOP}"
         f" ({share:.0%}; target {SEARCH_TARGET:.0%})", *misses]
    )
    with capsys.disabled():  # the share is worth seeing on every run, not only when it falls short
        print("\n" + report)
    outside = [u for u in rec.requests if not is_local(u, origin)]
    assert not outside, f"searching requested outside localhost: {outside}"
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
    for doc in PAGES:
        text = doc.source.read_text(encoding="utf-8")
        front = text.split("\n---\n", 1)[0] if text.startswith("---\n") else ""
        assert ("\nkeywords:" in front) == (doc.path in with_keywords), f"{doc.source}: keywords in the index"
    notebooks = [d["location"] for d in index["docs"] if "notebook" in d["location"]]
    assert not notebooks, f"notebook entries in the search index: {notebooks[:5]}"


# characters that must not reach a reader: the U+200B that separates jieba's words in the index, its
# zero-width relatives, and U+FFFD (text broken in decoding)
INVISIBLE = {"\u200b": "U+200B", "\u200c": "U+200C", "\u200d": "U+200D", "\ufeff": "U+FEFF", "\ufffd": "U+FFFD"}
CLEAN_QUERIES = {"en": ["pinned memory", "device_count"], "zh": ["显存", "怎么把模型放到GPU上", "查看显卡数量"]}
CJK_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_search_results_read_cleanly(page, origin, lang):
    """The result list as rendered: no invisible characters, no heading-id syntax, the language's script, and
    highlights that mark words, not the punctuation next to them ("GPU，")."""
    page.goto(url(origin, DocPage(lang, "index.md")), wait_until="networkidle")
    for query in CLEAN_QUERIES.get(lang, []):
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


# --------------------------------------------------------------------------- every page: checks 3, 4 and 6


@pytest.mark.parametrize("doc", PAGES, ids=_ids(PAGES))
def test_page(subtests, page, origin, doc):
    """Each page is loaded once and checked three ways, each reported on its own (subtests):
    [offline] nothing is requested outside localhost and nothing logs an error while it loads;
    [axe] axe-core finds no serious or critical violation (light scheme; colour rules in the dark one too);
    [copy] every python block's copy button copies exactly the included snippet (pages with python only).
    """
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    with subtests.test("offline"):
        problems = _load_and_check(page, origin, url(origin, doc))
        if problems:
            pytest.fail(f"/{doc.path}:\n" + "\n".join(problems), pytrace=False)
    with subtests.test("axe"):
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
        report = _axe_problems(page)
        if report:
            pytest.fail(f"axe-core on /{doc.path}:\n" + "\n".join(report), pytrace=False)
    if doc in PYTHON_PAGES:
        with subtests.test("copy"):
            problems = _copy_problems(page, doc)
            if problems:
                pytest.fail(f"/{doc.path}:\n" + "\n\n".join(problems), pytrace=False)


# --------------------------------------------------------------------------- 4. offline and no errors


def _load_and_check(page, origin: str, target: str) -> list[str]:
    """Load target until the network is idle; what left localhost, what went wrong."""
    rec = Recorder.attach(page)
    response = page.goto(target, wait_until="networkidle")
    problems = [] if response is not None and response.ok else [f"{target}: HTTP {response and response.status}"]
    problems += [f"request leaves localhost: {u}" for u in rec.requests if not is_local(u, origin)]
    problems += unexpected_errors(rec, page.evaluate(SITEMAP_PROBES_JS))
    if not page.evaluate("typeof window.document$ !== 'undefined'"):
        problems.append("Material's JavaScript did not start (no window.document$): no search, palette, copy buttons")
    return problems


# --------------------------------------------------------------------------- 6. accessibility


def _axe_problems(page) -> list[str]:
    """axe-core on the loaded page: serious or critical violations in the light scheme, then those of the
    colour rules after switching to the dark scheme with the palette toggle."""
    body = page.locator("body")
    report = []
    light = [v for v in run_axe(page, {"resultTypes": ["violations"]}) if v["impact"] in SERIOUS]
    if light:
        report.append("light scheme:\n" + describe_violations(light))
    toggle = page.locator("form[data-md-component=palette] label:not([hidden])")
    if toggle.count() == 0:
        return [*report, "no palette toggle to show (Material's JavaScript did not run?): dark scheme unchecked"]
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    page.evaluate("Promise.all(document.getAnimations().map(a => a.finished))")  # colour transitions
    options = {"runOnly": {"type": "rule", "values": COLOUR_RULES}, "resultTypes": ["violations"]}
    dark = [v for v in run_axe(page, options) if v["impact"] in SERIOUS]
    if dark:
        report.append("dark scheme (colour rules):\n" + describe_violations(dark))
    return report


# --------------------------------------------------------------------------- 3. copy button


def _closest(text: str, candidates: list[str | None]) -> str:
    pool = [c for c in candidates if c is not None]
    if not pool:
        return "(no code block on the page has a copy button)"
    best = max(pool, key=lambda c: difflib.SequenceMatcher(None, text, c).ratio())
    diff = difflib.unified_diff(text.splitlines(), best.splitlines(), "included code", "closest copy", lineterm="")
    return "\n".join(diff)


def _copy_problems(page, doc: DocPage) -> list[str]:
    """Each python fence's copy button yields the code as included (Material trims the end)."""
    python = [f for f in fences(doc.source) if f.is_python]
    expected = [f.code.rstrip("\n") for f in python]
    copy_texts = page.evaluate(COPY_TEXTS_JS)  # one per code block of the article, in order
    where = match_in_order(expected, copy_texts)
    missing = [
        f"{doc.source.relative_to(REPO)} {fence.label}: no copy button yields it\n{_closest(text, copy_texts)}"
        for fence, text, hit in zip(python, expected, where, strict=True)
        if hit is None
    ]
    if missing or not python:
        return missing

    # and through the real clipboard: a mouse click on the first button, scripted clicks on the others (the
    # same ClipboardJS handler, without Playwright's actionability checks per block), each read back
    hits = [hit for hit in where if hit is not None]  # all of them, by now
    page.evaluate("navigator.clipboard.writeText('')")
    page.locator("article div.highlight").nth(hits[0]).locator("[data-clipboard-target]").click()
    copied = [page.evaluate("navigator.clipboard.readText()")]
    copied += page.evaluate(CLIPBOARD_COPIES_JS, hits[1:])
    return [
        f"{fence.label}: after clicking copy the clipboard holds {got!r}"
        for fence, text, got in zip(python, expected, copied, strict=True)
        if got != text
    ]


# --------------------------------------------------------------------------- other built pages


def _other_pages(built_site) -> list[str]:
    """Built HTML pages that no docs/<lang>/*.md makes: 404.html, pages added by plugins and hooks."""
    known = {d.path for d in PAGES}
    return [
        rel
        for html in sorted(built_site.rglob("*.html"))
        if not (rel := html.relative_to(built_site).as_posix()).startswith("assets/")
        and rel.removesuffix("index.html") not in known
    ]


def test_other_built_pages(subtests, new_page, origin, built_site):
    """Pages that no docs/<lang>/*.md makes (404.html, pages added by plugins and hooks) get the same
    [offline] and [axe] checks as test_page."""
    for rel in _other_pages(built_site):
        page = new_page()
        with subtests.test(f"offline /{rel}"):
            problems = _load_and_check(page, origin, f"{origin}/{rel}")
            if problems:
                pytest.fail(f"/{rel}:\n" + "\n".join(problems), pytrace=False)
        with subtests.test(f"axe /{rel}"):
            report = _axe_problems(page)
            if report:
                pytest.fail(f"axe-core on /{rel}:\n" + "\n".join(report), pytrace=False)


# --------------------------------------------------------------------------- 5. palette, phone


@pytest.mark.parametrize("lang", LANGUAGES)
def test_palette_toggle_switches_light_and_dark(page, origin, lang):
    page.goto(url(origin, DocPage(lang, "index.md")))
    body = page.locator("body")
    toggle = page.locator("form[data-md-component=palette] label:not([hidden])")
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    page.reload()  # the choice is remembered
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "default")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_navigation_drawer_opens_on_a_phone(new_page, origin, lang):
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(url(origin, DocPage(lang, "devices.md")))
    left_edge = "() => document.querySelector('.md-sidebar--primary').getBoundingClientRect().right"
    assert page.evaluate(left_edge) <= 0, "the drawer shows before it is opened"
    page.locator("label.md-header__button[for=__drawer]").click()
    expect(page.locator("#__drawer")).to_be_checked()
    page.wait_for_function("() => document.querySelector('.md-sidebar--primary').getBoundingClientRect().left >= 0")
    nav = page.locator("nav.md-nav--primary")
    expect(nav).to_be_visible()
    # a link to another page is on top in the open drawer (not covered by another level of it), and works
    links = nav.locator("a.md-nav__link[href]:not(.md-nav__link--active):not([href^='#'])")
    on_top = links.evaluate_all(
        """links => links.findIndex(a => {
             const r = a.getBoundingClientRect();
             if (r.width === 0 || r.bottom > innerHeight || r.left < 0) return false;
             const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
             return hit !== null && a.contains(hit);
           })"""
    )
    assert on_top >= 0, "no link to another page can be clicked in the opened drawer"
    target = links.nth(on_top)
    href = target.evaluate("a => a.href")
    target.click()
    page.wait_for_url(href)


# --------------------------------------------------------------------------- screenshots


@pytest.mark.parametrize("lang", LANGUAGES)
def test_screenshots_of_home_and_devices(page, origin, lang):
    """Full-page screenshots into test-artifacts/ (git-ignored), for a human or CI to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    for rel, name in (("index.md", "home"), ("devices.md", "devices")):
        page.goto(url(origin, DocPage(lang, rel)), wait_until="networkidle")
        page.evaluate("document.fonts.ready.then(() => true)")
        out = ARTIFACTS / f"{lang}-{name}.png"
        page.screenshot(path=str(out), full_page=True)
        assert out.stat().st_size > 10_000, f"{out}: suspiciously small"
