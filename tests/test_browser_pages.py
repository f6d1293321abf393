"""Every page of the built site in a real browser (Debian's Chromium driven by Playwright), both languages.

What a reader does: load a page offline, copy code, switch language, flip light/dark, open the menu on a
phone; and what axe-core says about each page. The plumbing (server, browser, axe, error filter) is in
browser.py; search has its own file, test_browser_search.py.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import textwrap
from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

import notebooks
import page_text
import search_index
from browser import CHECKED_BY, DESKTOP, PALETTE_TOGGLE, Recorder, describe_violations, start_axe
from site_pages import LANGUAGES, REPO, Page, expand_includes, fences, pages

pytest_plugins = ["browser"]

PAGES = pages()
IDS = [f"{p.lang}/{p.stem}" for p in PAGES]
PYTHON = {"python", "py"}  # the syntaxes whose blocks readers copy as Python (py: shown, not run)
# the syntaxes a reader copies as they are: Python, shell commands that run (bash, sh) or are shown (shell), a Jupyter
# line (ipython); a console block copies its commands alone (console_commands), a text fence (an output) has no button
COPIED_AS_IS = PYTHON | {"bash", "sh", "shell", "ipython"}
PHONE = {"width": 390, "height": 844}
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
ARTIFACTS = REPO / "test-artifacts"
SERIOUS = {"serious", "critical"}
SEARCH_INDEX = "search/search_index.json"


# --------------------------------------------------------------------------- one load of a page, every check


def _fulfil_json(route, body: str) -> None:
    route.fulfill(body=body, content_type="application/json")


@dataclass
class Findings:
    """What one load of a page found, per check: the problems, or the error that stopped the check."""

    offline: list[str] | Exception
    axe: list[str] | Exception
    copy: list[str] | Exception
    languages: dict[str, dict[str, str] | str] | Exception  # where it landed, its <html lang>, its language menu
    layout: dict | Exception  # as loaded, at the desktop width: see LAYOUT_JS
    phone: dict | Exception  # the same load at a phone's width: see PHONE_CODE_JS


def _checked(check, *args) -> list[str] | Exception:
    try:
        return check(*args)
    except Exception as error:  # reported by the test of this check; the other checks still run
        return error


@pytest.fixture(scope="session")
def findings(new_context, origin, built_site):
    """Findings of a page (a URL path under the site root), loaded once and checked every way.

    Each page gets a fresh context, as for a first visitor (light scheme). While one page is checked, the
    next one in order loads and runs axe alongside (axe takes most of the time, one core each; not under
    pytest-xdist, whose other worker uses that core). The network is left to go quiet while axe and the copy
    check run; everything requested or logged up to then counts for the offline check. The code blocks are also
    looked at with the window at a phone's width, then the desktop width again, before axe runs.

    The search index each page fetches arrives with its entries left out: Material's worker would otherwise
    index the whole site on every page (about half a core-second each, beside axe). The index and the worker are
    the same on every page; test_browser_search.py loads them in full, searches and checks for errors.
    """
    docs = {p.url: p for p in PAGES} | {rel: None for rel in _other_pages(built_site)}
    order, started, done = list(docs), {}, {}
    indexes = {lang: search_index.language_index(built_site, lang) for lang in LANGUAGES}
    no_entries = {lang: json.dumps({**json.loads(path.read_text(encoding="utf-8")), "docs": []})
                  for lang, path in indexes.items()}

    def start(path: str):
        context = new_context()
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
        for lang, body in no_entries.items():
            context.route(f"{origin}/{search_index.language_folder(lang)}{SEARCH_INDEX}",
                          functools.partial(_fulfil_json, body=body))
        page = context.new_page()
        rec = Recorder(page)
        try:
            response = page.goto(f"{origin}/{path}", wait_until="load")
            languages = {"url": page.url, "lang": page.evaluate("document.documentElement.lang"),
                         "selector": _language_links(page, ".md-header .md-select a[hreflang]")}
            layout = _checked(page.evaluate, LAYOUT_JS)  # before axe, which flips the colour scheme
            # what a reader unfolds is checked as shown: at a phone's width, by axe, through its copy buttons
            page.evaluate(OPEN_FOLDS_JS)
            phone = _checked(_code_on_a_phone, page)
            start_axe(page)
        except Exception as error:  # reported by every check of this page, in its own test
            return context, page, rec, error, error, error, error
        return context, page, rec, response, languages, layout, phone

    def finish(path: str, context, page, rec, response, languages, layout, phone) -> Findings:
        if isinstance(response, Exception):
            return Findings(response, response, response, response, response, response)
        axe = _checked(lambda: _axe_problems(page.evaluate("() => window.axeFound")))
        copy = _checked(_copy_problems, page, docs[path]) if docs[path] else []
        page.wait_for_load_state("networkidle")
        offline = [] if response is not None and response.ok else [f"HTTP {response and response.status}"]
        offline += [f"request leaves localhost: {u}" for u in rec.outside(origin)]
        offline += rec.unexpected_errors(page)
        if not page.evaluate("typeof window.document$ !== 'undefined'"):
            offline.append("Material's JavaScript did not start (no window.document$): no search, palette, copy")
        context.close()
        return Findings(offline, axe, copy, languages, layout, phone)

    def get(path: str) -> Findings:
        if path not in done:
            # the next page loads while this one is checked; under pytest-xdist the other worker keeps the second
            # core busy, and the next page may be its
            following = [] if XDIST_WORKER else order[order.index(path) + 1 : order.index(path) + 2]
            for p in [path, *following]:
                if p not in started and p not in done:
                    started[p] = start(p)
            done[path] = finish(path, *started.pop(path))
        return done[path]

    return get


def _problems(found):
    """What a check found, or the error that stopped it, raised."""
    if isinstance(found, Exception):
        raise found
    return found


def _fail_on(problems: list[str], heading: str, sep: str = "\n") -> None:
    if problems:
        pytest.fail(f"{heading}:\n" + sep.join(problems), pytrace=False)


@pytest.mark.parametrize("doc", PAGES, ids=IDS)
def test_page_loads_offline_without_errors(findings, doc):
    """Nothing is requested outside localhost and nothing logs an error while the page loads and is used."""
    _fail_on(_problems(findings(doc.url).offline), f"/{doc.url}")


@pytest.mark.parametrize("doc", PAGES, ids=IDS)
def test_page_has_no_serious_accessibility_violations(findings, doc):
    """axe-core finds no serious or critical violation (light scheme; the colour rules in the dark one too)."""
    _fail_on(_problems(findings(doc.url).axe), f"axe-core on /{doc.url}")


@pytest.mark.parametrize("doc", PAGES, ids=IDS)
def test_copy_buttons_copy_what_the_block_shows(findings, doc):
    """Every code block's copy button, clicked, puts on the clipboard what the block shows: a Python block the
    included snippet, comments in the page's language; a shell block its lines, comments as comments; a console
    block its commands without their `$ ` prompts and without their output. A shown output (a text fence) has no
    copy button."""
    problems = _problems(findings(doc.url).copy)
    if not problems and not any(f.syntax in COPIED_AS_IS | {"console"} for f in fences(doc.text())):
        pytest.skip("no code block on this page")
    _fail_on(problems, f"/{doc.url}", sep="\n\n")


# JS, run once the page has loaded (fonts included): the article's code blocks and tables wider than their own
# box, each named by its first line, and the number of lines the verification badge (the stamp's summary) takes.
# A line of the badge is a run of its text's boxes that overlap vertically (inline code sits a little higher).
LAYOUT_JS = """
async () => {
  await document.fonts.ready;
  const firstLine = text => (text.split("\\n").find(line => line.trim()) || "").trim().slice(0, 90);
  const wide = [];
  for (const code of document.querySelectorAll(".md-content pre > code")) {
    if (code.scrollWidth > code.clientWidth + 1)
      wide.push(`code block, ${code.scrollWidth} px in ${code.clientWidth} px: ${firstLine(code.innerText)}`);
  }
  for (const table of document.querySelectorAll(".md-content table")) {
    const box = table.closest(".md-typeset__scrollwrap") || table;
    const over = [table, box].find(el => el.scrollWidth > el.clientWidth + 1);
    if (over) {
      const head = [...table.rows[0].cells].map(cell => cell.innerText.trim()).join(" | ");
      wide.push(`table, ${over.scrollWidth} px in ${over.clientWidth} px: ${head}`);
    }
  }
  let badgeLines = null;
  const summary = document.querySelector(".provenance-note summary");
  if (summary) {
    const range = document.createRange();
    range.selectNodeContents(summary);
    const boxes = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0).sort((a, b) => a.top - b.top);
    let bottom = -Infinity;
    badgeLines = 0;
    for (const box of boxes) {
      if (box.top >= bottom - 1) { badgeLines += 1; bottom = box.bottom; }
      else bottom = Math.max(bottom, box.bottom);
    }
  }
  // the page's height, and each H2 section's, from its heading to the next or the article's end (details folded)
  const top = el => el.getBoundingClientRect().top + window.scrollY;
  const article = document.querySelector("article");
  const end = article ? article.getBoundingClientRect().bottom + window.scrollY : 0;
  const h2s = [...document.querySelectorAll("article h2")];
  const sections = h2s.map((h, i) => [h.id, Math.round((i + 1 < h2s.length ? top(h2s[i + 1]) : end) - top(h))]);
  return {width: window.innerWidth, wide, badgeLines, height: document.documentElement.scrollHeight, sections};
}
"""
MAX_BADGE_LINES = 2
# a page a reader can finish (issue 35): at the desktop width, the page and each of its H2 sections at most this tall;
# the MNIST page, the full example, may be taller (issue 51)
MAX_PAGE_PX, MAX_SECTION_PX, LONG_PAGES = 10_000, 3_000, {"mnist.md": 15_000}


@pytest.mark.parametrize("doc", PAGES, ids=IDS)
def test_a_page_and_its_sections_are_short_enough_to_finish(findings, doc):
    layout = _problems(findings(doc.url).layout)
    most = LONG_PAGES.get(doc.name, MAX_PAGE_PX)
    problems = [f"the page: {layout['height']} px"] if layout["height"] > most else []
    problems += [f"#{anchor}: {px} px" for anchor, px in layout["sections"] if px > MAX_SECTION_PX]
    _fail_on(problems, f"/{doc.url} at {layout['width']} px: longer than {most} px a page, "
             f"{MAX_SECTION_PX} px a section")


@pytest.mark.parametrize("doc", PAGES, ids=IDS)
def test_no_code_block_or_table_is_wider_than_the_column(findings, doc):
    """On a desktop (1280 px) nothing in the article scrolls sideways: each code block and table fits its box.
    Snippets are formatted to the line length a code block holds (snippets/ruff.toml), shell commands wrap with
    `\\`, and printed lines are kept as short."""
    layout = _problems(findings(doc.url).layout)
    assert layout["width"] == DESKTOP["width"], layout
    _fail_on(layout["wide"], f"/{doc.url} at {layout['width']} px: wider than its box, so it scrolls sideways")


@pytest.mark.parametrize("doc", PAGES, ids=IDS)
def test_verification_badge_is_at_most_two_lines(findings, doc):
    """The verification stamp's one-line badge (the summary of the stamp at the foot of every page with code)
    wraps to at most two lines at 1280 px."""
    layout = _problems(findings(doc.url).layout)
    if layout["badgeLines"] is None:
        if any(f.runs for f in fences(doc.text())):
            pytest.fail(f"/{doc.url} has code that runs, but no note of where it ran (.provenance-note summary)",
                        pytrace=False)
        pytest.skip("no code that runs on this page, so no verification stamp")
    assert layout["badgeLines"] <= MAX_BADGE_LINES, f"/{doc.url}: the badge takes {layout['badgeLines']} lines"


# JS, run with the window at a phone's width (PHONE): each code block of the article -- a page's python, bash and
# console blocks (their <div>'s language-* class, mkdocs.yml's pygments_lang_class), a notebook page's code cells --
# with `white-space` other than `pre` or more visual lines than lines of text: wrapped, so a continuation restarts
# at column 0 and Python's indentation is lost. A visual line is a run of the code's boxes that overlap vertically.
# And each block that scrolls sideways (any code or output) but takes no keyboard focus (axe's
# scrollable-region-focusable): Material gives a scrolling `pre > code` tabindex="0" and docs/javascripts/
# code_focus.js a notebook's `pre`, each from a ResizeObserver, so they are waited for a moment.
# JS: every fold of the article opened (a closed <details> lays its code out, but Material gives a block it
# cannot see no keyboard focus, and its copy button cannot be clicked), once the page has drawn it
OPEN_FOLDS_JS = """
async () => {
  document.querySelectorAll(".md-content details:not([open])").forEach(fold => { fold.open = true; });
  await new Promise(ok => requestAnimationFrame(() => requestAnimationFrame(ok)));
}
"""
PHONE_CODE_JS = """
async () => {
  const pause = ms => new Promise(ok => setTimeout(ok, ms));
  await document.fonts.ready;
  await new Promise(ok => requestAnimationFrame(() => requestAnimationFrame(ok)));
  const firstLine = text => (text.split("\\n").find(line => line.trim()) || "").trim().slice(0, 90);
  const code = [...document.querySelectorAll(
    ".md-content div.highlight:is(.language-python, .language-py, .language-bash, .language-sh, .language-shell,"
    + " .language-ipython, .language-console, .language-text.aligned) > pre > code,"
    + " .md-content .jupyter-wrapper .highlight-ipynb > pre")];
  const scrollers = [...document.querySelectorAll(".md-content pre > code, .md-content .jupyter-wrapper pre")];
  const scrolls = el => el.scrollWidth > el.clientWidth + 1;
  const unfocused = () => scrollers.filter(el => scrolls(el) && el.tabIndex < 0);
  for (let i = 0; i < 40 && unfocused().length; i++) await pause(50);
  const visualLines = el => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const boxes = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0).sort((a, b) => a.top - b.top);
    let lines = 0, bottom = -Infinity;
    for (const box of boxes) {
      if (box.top >= bottom - 1) { lines += 1; bottom = box.bottom; }
      else bottom = Math.max(bottom, box.bottom);
    }
    return lines;
  };
  const wrapped = [];
  for (const el of code) {
    const lines = el.textContent.split("\\n").filter(line => line.length > 0).length;
    const seen = visualLines(el), whiteSpace = getComputedStyle(el).whiteSpace;
    if (whiteSpace !== "pre" || seen > lines)
      wrapped.push(`${lines} lines shown as ${seen} (white-space: ${whiteSpace}): ${firstLine(el.textContent)}`);
  }
  const unreachable = unfocused().map(el =>
    `scrolls (${el.scrollWidth} px in ${el.clientWidth} px) but takes no keyboard focus: ${firstLine(el.textContent)}`);
  // a name in a benchmark table's cell (`dataloader`) stays on one line: the table scrolls sideways instead
  const cellCode = [...document.querySelectorAll(
    ".md-content :is(.benchmark-table, .benchmark-summary) td code")];
  for (const el of cellCode) {
    const seen = visualLines(el);
    if (seen > 1) wrapped.push(`a name in a table cell takes ${seen} lines: ${firstLine(el.textContent)}`);
  }
  // the summary under the MNIST page's title fits the screen: its last column is the finding
  for (const table of document.querySelectorAll(".md-content .benchmark-summary table")) {
    const box = table.closest(".md-typeset__scrollwrap") || table.parentElement;
    if (table.scrollWidth > box.clientWidth + 1)
      wrapped.push(`the summary table is ${table.scrollWidth} px wide in ${box.clientWidth} px`);
  }
  // a glossary entry's meaning takes the screen's width (docs/stylesheets/extra.css), not a column of a few characters
  const meanings = [...document.querySelectorAll(".md-content .glossary td:nth-child(3)")];
  for (const td of meanings)
    if (td.clientWidth < 0.8 * window.innerWidth)
      wrapped.push(`a glossary meaning ${td.clientWidth} px wide: ${firstLine(td.textContent)}`);
  return {width: window.innerWidth, code: code.length, scrolling: scrollers.filter(scrolls).length, wrapped,
          unreachable, cellCode: cellCode.length, meanings: meanings.length,
          aligned: document.querySelectorAll(".md-content div.language-text.aligned").length};
}
"""


def _code_on_a_phone(page) -> dict:
    """PHONE_CODE_JS at a phone's width, then the window back at the desktop width (for axe, as loaded)."""
    page.set_viewport_size(PHONE)
    try:
        return page.evaluate(PHONE_CODE_JS)
    finally:
        page.set_viewport_size(DESKTOP)
        page.evaluate("new Promise(ok => requestAnimationFrame(() => requestAnimationFrame(ok)))")


def _phone_problems(found: dict, where: str) -> list[str]:
    assert found["width"] == PHONE["width"], found
    return [f"{where} at {found['width']} px: {problem}" for problem in found["wrapped"] + found["unreachable"]]


@pytest.mark.parametrize("doc", PAGES, ids=IDS)
def test_code_does_not_wrap_on_a_phone(findings, doc):
    """At 390 px no Python or shell block wraps: a line longer than the screen scrolls inside its block, which
    keeps the indentation (a wrapped line restarts at column 0); and a block that scrolls can be scrolled from
    the keyboard. Shown outputs (text fences) may wrap, except those laid out in columns (docs/hooks/page_text.py
    marks them .aligned: the "what waits" table, the dtype table, printed tensors). A name in a benchmark table
    stays on one line (the MNIST records once stacked `dataloader` a letter a line in Chinese), and a glossary
    entry's meaning takes the screen's width (it was a column five Chinese characters wide)."""
    found = _problems(findings(doc.url).phone)
    if any(f.syntax in PYTHON for f in fences(doc.text())):
        assert found["code"] > 0, f"/{doc.url}: no Python block found (div.highlight.language-python)"
    if doc.stem in {"performance", "mixed-precision", "reproducibility"}:  # the check sees aligned outputs
        assert found["aligned"] > 0, f"/{doc.url}: no output marked .aligned"
    if doc.stem == "glossary":  # and the glossary's entries
        assert found["meanings"] > 50, f"/{doc.url}: {found['meanings']} glossary entries found (.glossary td)"
    if doc.stem == "mnist":
        assert found["cellCode"] > 0, f"/{doc.url}: no name found in a benchmark table"
    _fail_on(_phone_problems(found, f"/{doc.url}"), "code that wraps or cannot be scrolled from the keyboard")


def _other_pages(built_site) -> list[str]:
    """Built HTML pages that no docs/<lang>/*.md makes: 404.html, pages added by plugins and hooks."""
    known = {p.url for p in PAGES}
    htmls = (html.relative_to(built_site).as_posix() for html in sorted(built_site.rglob("*.html")))
    return [rel for rel in htmls if not rel.startswith("assets/") and rel.removesuffix("index.html") not in known]


# what those should be: the 404 page, and the notebook page of every page with code (docs/hooks/notebooks.py)
def _notebook_page(page: Page) -> str:
    """The built notebook page of a page: notebooks/devices/index.html, zh/notebooks/index.html (the home's)."""
    language_root = page.url.removesuffix(f"{page.stem}/")
    return f"{language_root}notebooks/{'' if page.stem == 'index' else f'{page.stem}/'}index.html"


OTHER_PAGES = sorted(["404.html", *(_notebook_page(p) for p in PAGES if notebooks.has_code(p.text()))])


def test_the_other_built_pages_are_the_404_and_the_notebooks(built_site):
    """Each page the checks below do not expect fails here, so none goes unchecked."""
    assert sorted(_other_pages(built_site)) == OTHER_PAGES


@pytest.mark.parametrize("rel", OTHER_PAGES)
def test_other_built_page_code_does_not_wrap_on_a_phone(findings, rel):
    """The same on the pages that no docs/<lang>/*.md makes: the notebook pages' code cells do not wrap (their
    outputs may), and a cell that scrolls takes the keyboard focus."""
    found = _problems(findings(rel).phone)
    if "/notebooks/" in f"/{rel}":
        assert found["code"] > 0, f"/{rel}: no code cell found"
    if rel.endswith("notebooks/mnist/index.html"):  # the widest code of the site: the check sees a cell scroll
        assert found["scrolling"] > 0, f"/{rel}: no notebook cell scrolls at 390 px: is the check blind?"
    _fail_on(_phone_problems(found, f"/{rel}"), "pages that no docs/<lang>/*.md makes")


@pytest.mark.parametrize("rel", OTHER_PAGES)
def test_other_built_page_loads_offline_without_errors(findings, rel):
    _fail_on([f"/{rel}: {p}" for p in _problems(findings(rel).offline)], "pages that no docs/<lang>/*.md makes")


@pytest.mark.parametrize("rel", OTHER_PAGES)
def test_other_built_page_has_no_serious_accessibility_violations(findings, rel):
    _fail_on([f"axe-core on /{rel}: {p}" for p in _problems(findings(rel).axe)], "pages that no docs/<lang>/*.md makes")


# import keywords made faint in the light scheme (a page's blocks, a notebook page's cells), the code blocks' own
# text (outputs) in the dark one
FAINT_CODE = """.highlight .kn, .highlight-ipynb .kn { color: #bdbdbd !important }
[data-md-color-scheme=slate] .highlight code { color: #4a4a4a !important }"""
# the font sizes of a page's import keywords: each size is a pairing of its own (a block in an admonition is smaller)
KEYWORD_SIZES_JS = "q => new Set([...document.querySelectorAll(q)].map(e => getComputedStyle(e).fontSize)).size"


def _axe_with_style(new_context, origin, path: str, css: str) -> tuple[object, dict]:
    """axe's findings in both schemes on a page with extra CSS, as {scheme: {rule: [(target, html) of each node]}},
    the target being the last of the node's selectors, without the marks of checked elements that axe may add."""
    page = new_context().new_page()
    page.goto(f"{origin}/{path}", wait_until="load")
    page.add_style_tag(content=css)
    start_axe(page)
    found = page.evaluate("() => window.axeFound")
    return page, {scheme: {v["id"]: [(_unmarked(n["target"][-1]), n["html"]) for n in v["nodes"]]
                           for v in found[scheme]} for scheme in ("light", "dark")}


def _unmarked(target: str) -> str:
    """axe's selector for a node without the marks of checked elements (browser.CHECKED_BY) that it may use."""
    for mark in CHECKED_BY.values():
        target = target.replace(f'[{mark}=""]', "")
    return target


@pytest.mark.parametrize(("path", "code"), [("tensors/", "div.highlight code"),
                                            ("notebooks/tensors/", "div.highlight-ipynb pre")])
def test_the_colour_rules_see_faint_code(new_context, origin, path, code):
    """The colour rules check each colour pairing once per page (an import keyword of the tensors page or of its
    notebook page once per font size, not its repeats) and, on a page, the code blocks' own text, in both schemes."""
    page, failing = _axe_with_style(new_context, origin, path, FAINT_CODE)
    light = [target for target, _ in failing["light"].get("color-contrast", [])]
    keywords = [t for t in light if t.endswith(".kn") or "> .kn" in t]
    sizes = page.evaluate(KEYWORD_SIZES_JS, f"{code} .kn")
    assert 1 <= len(keywords) == sizes < page.locator(f"{code} .kn").count(), light
    if code == "div.highlight code":
        assert any(t.endswith("> code") for t, _ in failing["dark"].get("color-contrast", [])), failing["dark"]


# what a pairing holds besides the text's colour, each shown by one element that differs from its page's many alike
# only there: the CSS, the rule it then fails, how that element's HTML starts
AROUND_THE_TEXT = {
    # one paragraph of the prose on a dark background: its text keeps the colour that passes in the others
    "background": ("article > p:nth-of-type(3) { background-color: #6a6a6a !important }", "color-contrast", "<p"),
    # the prose's links without their underline (docs/stylesheets/extra.css), so told apart by colour alone (3:1
    # to the text around them, link-in-text-block), and the text around one link (to the Reproducibility page's
    # seeds, the page's fourth link in running text) in nearly the links' colour: the other links keep passing
    "text around a link": ('.md-typeset a { text-decoration: none !important }\n'
                           '.md-typeset :has(> a[href$="reproducibility/#seeds"]) { color: #b5401f !important }',
                           "link-in-text-block", "<a "),
}


@pytest.mark.parametrize("around", AROUND_THE_TEXT)
def test_the_colour_rules_see_text_that_differs_only_in_what_is_around_it(new_context, origin, around):
    """Each colour pairing is checked once per page, so the pairing must hold what is around the text: one
    paragraph on a darker background, one link amid text of nearly its colour, each fails alone on the tensors
    page (light scheme) among many alike that pass."""
    css, rule, html_start = AROUND_THE_TEXT[around]
    _, failing = _axe_with_style(new_context, origin, "tensors/", css)
    reported = [target for target, html in failing["light"].get(rule, []) if html.startswith(html_start)]
    assert len(reported) == 1, failing["light"]


def _axe_problems(found: dict) -> list[str]:
    """Serious or critical violations in the light scheme, then those of the colour rules in the dark one."""
    report = [] if found["scheme"] == "default" else [f"the page opened in the {found['scheme']!r} scheme"]
    light = [v for v in found["light"] if v["impact"] in SERIOUS]
    if light:
        report.append("light scheme:\n" + describe_violations(light))
    if "dark" not in found:
        return [*report, "no palette toggle to show (Material's JavaScript did not run?): dark scheme unchecked"]
    if found["dark"] is None:
        return [*report, "the palette toggle did not switch to the dark scheme: dark scheme unchecked"]
    dark = [v for v in found["dark"] if v["impact"] in SERIOUS]
    if dark:
        report.append("dark scheme (colour rules):\n" + describe_violations(dark))
    return report


# JS: per code block of the article, what Material's copy button would put on the clipboard.
# Mirrors Material's integrations/clipboard extract(): the [data-copy] attribute of an ancestor if there
# is one, else the innerText of the data-clipboard-target element (with data-md-copying set), trimEnd().
COPY_TEXTS_JS = """
() => [...document.querySelectorAll("article div.highlight")].map(block => {
  const button = block.querySelector("[data-clipboard-target]");
  const target = button && document.querySelector(button.getAttribute("data-clipboard-target"));
  if (!target) return null;
  target.setAttribute("data-md-copying", "");
  const holder = target.closest("[data-copy]");
  const text = holder ? holder.getAttribute("data-copy") : target.innerText;
  target.removeAttribute("data-md-copying");
  return text.trimEnd();
})
"""


def _closest(text: str, candidates: list[str | None]) -> str:
    pool = [c for c in candidates if c is not None]
    if not pool:
        return "(no code block on the page has a copy button)"
    best = max(pool, key=lambda c: difflib.SequenceMatcher(None, text, c).ratio())
    return "\n".join(
        difflib.unified_diff(text.splitlines(), best.splitlines(), "included code", "closest copy", lineterm="")
    )


# JS: the article's shown outputs (text fences), each with a copy button by its first line, and how many there are
OUTPUTS_WITH_A_BUTTON_JS = """
() => {
  const firstLine = text => (text.split("\\n").find(line => line.trim()) || "").trim().slice(0, 90);
  const outputs = [...document.querySelectorAll("article div.highlight.language-text")];
  const withButton = outputs.filter(block => block.querySelector("[data-clipboard-target], .md-clipboard"))
    .map(block => firstLine(block.querySelector("code").innerText));
  return {outputs: outputs.length, withButton};
}
"""
# JS, on a code block: the id of the radio input that shows the content tab it lies in, or null (a block in a tab
# that is not shown has no box to click: its tab is clicked first)
TAB_OF_JS = """
block => {
  const tab = block.closest(".tabbed-block");
  if (!tab) return null;
  const index = [...tab.parentElement.children].indexOf(tab);
  return tab.closest(".tabbed-set").querySelectorAll(":scope > input")[index].id;
}
"""


def console_commands(code: str) -> str:
    """What a console block's copy button copies: each `$ ` line's command and the lines that continue it (a `\\` at
    a line's end), without the prompt; the other lines are the session's output, left out."""
    commands, continued = [], False
    for line in code.splitlines():
        if continued or line.startswith("$ "):
            commands.append(line if continued else line.removeprefix("$ "))
            continued = line.endswith("\\")
    return "\n".join(commands)


def _as_built(code: str) -> str:
    """Code as the build shows it: Home's clone placeholder replaced by the command docs/hooks/page_text.py writes for
    this build (its repository's, REPO_URL as the deploy sets it, or the checkout's; tests/test_site.py checks it)."""
    command = (page_text.clone_command(os.environ["REPO_URL"]) if os.environ.get("REPO_URL")
               else page_text.local_clone_command())
    return page_text.CLONE.sub(lambda _: command, code)


def _output_problems(page, doc: Page) -> list[str]:
    """A shown output (a text fence) has no copy button (its <div> is .no-copy, docs/hooks/page_text.py)."""
    found = page.evaluate(OUTPUTS_WITH_A_BUTTON_JS)
    text_fences = sum(f.syntax == "text" for f in fences(doc.text()))
    problems = [f"the page has {text_fences} text fences, but {found['outputs']} div.highlight.language-text"] if (
        found["outputs"] < text_fences) else []
    return problems + [f"a shown output has a copy button: {line}" for line in found["withButton"]]


def _copy_problems(page, doc: Page) -> list[str]:
    """No copy button on outputs (above); each code fence's copy button yields what the fence shows (Python as
    included, Material trims the end), found in page order among the article's code blocks; then the same through
    the real clipboard."""
    outputs = _output_problems(page, doc)
    if outputs:
        return outputs
    text = doc.text()
    shown = [
        (i, raw, code)
        for i, (raw, code) in enumerate(zip(fences(text), fences(expand_includes(text, doc.lang)), strict=True), 1)
        if raw.syntax in COPIED_AS_IS | {"console"}
    ]
    labels = [f"fence {i} [{', '.join(raw.includes) or raw.syntax}]" for i, raw, _ in shown]
    expected = [console_commands(textwrap.dedent(code.code)) if raw.syntax == "console"
                else _as_built(textwrap.dedent(code.code)).rstrip("\n") for _, raw, code in shown]
    copy_texts = page.evaluate(COPY_TEXTS_JS)  # one per code block of the article, in order
    hits, start = [], 0
    for want in expected:
        hit = next((i for i in range(start, len(copy_texts)) if copy_texts[i] == want), None)
        hits.append(hit)
        start = start if hit is None else hit + 1
    missing = [
        f"{doc.path.relative_to(REPO)} {label}: no copy button yields it\n{_closest(want, copy_texts)}"
        for label, want, hit in zip(labels, expected, hits, strict=True)
        if hit is None
    ]
    if missing or not shown:
        return missing
    # a mouse click on each button, read back from the clipboard. Each a real click: the copy (ClipboardJS's
    # execCommand) needs the page's user activation, which a click grants for 5 s in Chromium, so scripted clicks
    # after one real click copied nothing once a long page on a busy machine outlasted it (zh/mnist's last two
    # fences). `force`: the buttons show on hover, and Playwright's actionability checks per block took seconds.
    copied = []
    for hit in hits:
        block = page.locator("article div.highlight").nth(hit)
        if tab := block.evaluate(TAB_OF_JS):
            page.locator(f"label[for='{tab}']").click()
        page.evaluate("navigator.clipboard.writeText('')")
        block.locator("[data-clipboard-target]").click(force=True)
        copied.append(page.evaluate("navigator.clipboard.readText()"))
    return [
        f"{label}: after clicking copy the clipboard holds {got!r}, not {want!r}"
        for label, want, got in zip(labels, expected, copied, strict=True)
        if got != want
    ]


# --------------------------------------------------------------------------- language switch


@pytest.fixture(scope="session")
def reading_page(new_context):
    """One page for the tests that only go to pages and read them: nothing they do is remembered."""
    return new_context().new_page()


def _language_links(page, selector: str) -> dict[str, str]:
    return dict(page.eval_on_selector_all(selector, "els => els.map(e => [e.hreflang, e.href])"))


# every page name, whichever language has it (a page missing in one language fails the switch test)
@pytest.mark.parametrize("name", sorted({p.name for p in PAGES}), ids=lambda name: name.removesuffix(".md"))
def test_language_switch_leads_to_the_same_page(findings, origin, name):
    """Each language's version of a page is in that language and its language menu links every version, so the
    menu leads from each version to the next; every version loads (the offline test). (The head has no hreflang
    links, docs/overrides/main.html: sitemap.xml has them, tests/test_site.py.)"""
    expected = {lang: f"{origin}/{Page(lang, name).url}" for lang in LANGUAGES}
    for lang in LANGUAGES:
        found = _problems(findings(Page(lang, name).url).languages)
        assert found["url"] == expected[lang], f"{expected[lang]} led to {found['url']}"
        assert found["lang"].startswith(lang), f"{expected[lang]}: <html lang={found['lang']!r}>"
        assert found["selector"] == expected, f"{expected[lang]}: language selector links"


def _choose_language(page, lang: str) -> None:
    page.locator(".md-header .md-select button").click()  # opens the list (hovering does too)
    page.locator(f".md-header .md-select a[hreflang={lang}]").click()


@pytest.mark.parametrize("name", ["index.md", "devices.md"])
def test_language_selector_by_hand(reading_page, origin, name):
    """Open the header's language menu, pick the other language, land on the same page there; and back."""
    page = reading_page
    home = Page(LANGUAGES[0], name)
    page.goto(f"{origin}/{home.url}")
    for lang in LANGUAGES[1:]:
        _choose_language(page, lang)
        page.wait_for_url(f"{origin}/{home.other(lang).url}")
        assert page.evaluate("document.documentElement.lang").startswith(lang)
        _choose_language(page, home.lang)
        page.wait_for_url(f"{origin}/{home.url}")
        assert page.evaluate("document.documentElement.lang").startswith(home.lang)


# --------------------------------------------------------------------------- palette, phone, screenshots


@pytest.mark.parametrize("lang", LANGUAGES)
def test_palette_toggle_switches_light_and_dark(new_context, origin, lang):
    page = new_context().new_page()  # a context of its own: nothing remembered from other tests
    page.goto(f"{origin}/{Page(lang, 'index.md').url}")
    body = page.locator("body")
    toggle = page.locator(PALETTE_TOGGLE)
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    page.reload()  # the choice is remembered
    expect(body).to_have_attribute("data-md-color-scheme", "slate")
    toggle.click()
    expect(body).to_have_attribute("data-md-color-scheme", "default")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_navigation_drawer_opens_on_a_phone(new_context, origin, lang):
    page = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(f"{origin}/{Page(lang, 'devices.md').url}")
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


@pytest.mark.parametrize("lang", LANGUAGES)
def test_screenshots_of_home_and_devices(reading_page, origin, lang):
    """Full-page screenshots into test-artifacts/ (git-ignored), for a human or CI to look at."""
    page = reading_page
    ARTIFACTS.mkdir(exist_ok=True)
    for name, shot in (("index.md", "home"), ("devices.md", "devices")):
        page.goto(f"{origin}/{Page(lang, name).url}")
        page.evaluate("document.fonts.ready.then(() => true)")
        out = ARTIFACTS / f"{lang}-{shot}.png"
        page.screenshot(path=str(out), full_page=True)
        assert out.stat().st_size > 10_000, f"{out}: suspiciously small"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_older_spelling_in_the_compat_note_copies_as_included(new_context, origin, lang):
    """The quick start's folded note (docs/hooks/provenance.py) shows an older spelling: opened, its code
    block's copy button copies the snippet as included, comments in the page's language; a screenshot of the opened
    note goes into test-artifacts/."""
    import provenance  # docs/hooks/provenance.py

    data = REPO / "docs" / "data"
    snippet = provenance.shown_snippets(provenance.load(data, REPO), "quickstart.md",
                                         provenance.load_spellings(data, REPO))[0]
    want = textwrap.dedent(fences(expand_includes(f'```python\n--8<-- "{snippet}"\n```\n', lang))[0].code)
    context = new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    page = context.new_page()
    page.goto(f"{origin}/{Page(lang, 'quickstart.md').url}")
    note = page.locator(".provenance-note details")
    note.locator("summary").click()
    block = note.locator("div.highlight")
    expect(block).to_have_count(1)
    expect(block.locator(".filename")).to_have_text(snippet)
    page.evaluate("navigator.clipboard.writeText('')")
    block.hover()
    block.locator("[data-clipboard-target]").click()
    assert page.evaluate("navigator.clipboard.readText()") == want.rstrip("\n")
    ARTIFACTS.mkdir(exist_ok=True)
    note.screenshot(path=str(ARTIFACTS / f"{lang}-quickstart-compat-note.png"))
    context.close()
