"""What the browser tests share: the local server, the site's pages as URLs, and readers of what Chromium shows.

Kept apart from test_browser.py so the tests read as checks, not as plumbing.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pytest_codeblocks import extract_from_buffer

from docs_pages import DOCS, INCLUDE, LANGUAGES, expand_includes, mkdocs_config, pages

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
NO_CHROMIUM = "Chromium is not installed (apt-get install chromium)"


def chromium_executable() -> str | None:
    return shutil.which("chromium")


def axe_script() -> Path:
    """axe-core as vendored by axe-playwright-python (installed from requirements.txt): no CDN."""
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("axe-playwright-python is not installed; it carries axe.min.js")
    path = Path(spec.origin).parent / "axe.min.js"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: axe-playwright-python no longer ships axe.min.js")
    return path


# --------------------------------------------------------------------------- serving the built site


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a browser that drops a connection mid-response (it navigated on) is no server error
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve directory on a free localhost port from a background thread; yields the origin."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --------------------------------------------------------------------------- the pages


@functools.cache
def default_language() -> str:
    for plugin in mkdocs_config().get("plugins", []):
        if isinstance(plugin, dict) and "i18n" in plugin:
            for lang in plugin["i18n"].get("languages", []):
                if lang.get("default"):
                    return lang["locale"]
    return LANGUAGES[0]


@dataclass(frozen=True)
class DocPage:
    """One Markdown page of one language and where the built site serves it."""

    lang: str
    rel: str  # path under docs/<lang>/, e.g. "devices.md"

    @property
    def source(self) -> Path:
        return DOCS / self.lang / self.rel

    @property
    def path(self) -> str:
        """URL path under the site root, no leading slash: "", "devices/", "zh/devices/"."""
        stem = self.rel.removesuffix(".md")
        if stem == "index":
            stem = ""
        elif stem.endswith("/index"):
            stem = stem.removesuffix("index")
        else:
            stem += "/"
        prefix = "" if self.lang == default_language() else f"{self.lang}/"
        return prefix + stem

    @property
    def id(self) -> str:
        return f"{self.lang}/{self.rel.removesuffix('.md')}"

    def other(self, lang: str) -> DocPage:
        return DocPage(lang, self.rel)


def doc_pages(lang: str | None = None) -> list[DocPage]:
    langs = LANGUAGES if lang is None else (lang,)
    return [DocPage(lg, p.relative_to(DOCS / lg).as_posix()) for lg in langs for p in pages(lg)]


# --------------------------------------------------------------------------- code fences of a page

_CODEBLOCKS_COMMENT = re.compile(r"^\s*<!--[-\s]*pytest-codeblocks:.*-->\s*$")
_PYTHON_FENCE = re.compile(r"^\s*```+\s*(python|py)\b", re.MULTILINE)


@dataclass
class Fence:
    """One fence as the page shows it (not merged with its expected output or its continuation)."""

    index: int
    syntax: str
    includes: list[str] = field(default_factory=list)
    code: str = ""  # includes expanded, as pymdownx.snippets puts it on the page

    @property
    def is_python(self) -> bool:
        return self.syntax.split(" ", 1)[0] in {"python", "py"}

    @property
    def label(self) -> str:
        return f"fence {self.index} [{', '.join(self.includes) or self.syntax}]"


def has_python_fence(source: Path) -> bool:
    return bool(_PYTHON_FENCE.search(source.read_text(encoding="utf-8")))


def fences(source: Path) -> list[Fence]:
    """Every fence of a page in document order, the way the HTML has one code block per fence.

    docs_pages.page_blocks() is what pytest runs: it folds an expected-output fence into the block before
    it and a `cont` fence into the block it continues. On the page each is its own code block with its
    own copy button, so the pytest-codeblocks comments are dropped before the fences are read.
    """
    text = "".join(
        line
        for line in source.read_text(encoding="utf-8").splitlines(keepends=True)
        if not _CODEBLOCKS_COMMENT.match(line)
    )
    raw = extract_from_buffer(io.StringIO(text))
    expanded = extract_from_buffer(io.StringIO(expand_includes(text, source.parent.name)))
    if len(raw) != len(expanded):
        raise RuntimeError(f"{source}: {len(raw)} fences before expanding includes, {len(expanded)} after")
    return [
        Fence(
            i + 1,
            (r.syntax or "").strip(),
            [m.group(1) for line in r.code.splitlines() if (m := INCLUDE.match(line))],
            e.code,
        )
        for i, (r, e) in enumerate(zip(raw, expanded, strict=True))
    ]


def match_in_order(expected: list[str], found: list[str | None]) -> list[int | None]:
    """For each expected text, the index of the next found text equal to it (order kept), else None."""
    out: list[int | None] = []
    start = 0
    for text in expected:
        hit = next((i for i in range(start, len(found)) if found[i] == text), None)
        out.append(hit)
        if hit is not None:
            start = hit + 1
    return out


# JS: per code block of the article, what Material's copy button would put on the clipboard.
# Mirrors Material's integrations/clipboard extract(): the [data-copy] attribute of an ancestor if there
# is one, else the innerText of the data-clipboard-target element (with data-md-copying set), trimEnd().
COPY_TEXTS_JS = """
() => [...document.querySelectorAll("article div.highlight")].map(block => {
  const button = block.querySelector("[data-clipboard-target]");
  if (!button) return null;
  const target = document.querySelector(button.getAttribute("data-clipboard-target"));
  if (!target) return null;
  target.setAttribute("data-md-copying", "");
  const holder = target.closest("[data-copy]");
  const text = holder ? holder.getAttribute("data-copy") : target.innerText;
  target.removeAttribute("data-md-copying");
  return text.trimEnd();
})
"""

# JS: click the copy button of each given code block (index among the article's blocks) and read the
# clipboard after each; the clipboard is emptied first, so a click that copies nothing shows as "".
CLIPBOARD_COPIES_JS = """
async indexes => {
  const blocks = document.querySelectorAll("article div.highlight");
  const copied = [];
  for (const i of indexes) {
    await navigator.clipboard.writeText("");
    blocks[i].querySelector("[data-clipboard-target]").click();
    copied.push(await navigator.clipboard.readText());
  }
  return copied;
}
"""


# --------------------------------------------------------------------------- what a page does


@dataclass
class Recorder:
    """Everything a page requested and every error it logged, from the moment it is attached."""

    requests: list[str] = field(default_factory=list)
    console_errors: list[tuple[str, str]] = field(default_factory=list)  # (text, url of the location)
    page_errors: list[str] = field(default_factory=list)

    @classmethod
    def attach(cls, page) -> Recorder:
        rec = cls()
        page.on("request", lambda request: rec.requests.append(request.url))
        page.on(
            "console",
            lambda msg: msg.type == "error" and rec.console_errors.append((msg.text, msg.location.get("url", ""))),
        )
        page.on("pageerror", lambda error: rec.page_errors.append(str(error)))
        return rec


def is_local(url: str, origin: str) -> bool:
    return url.startswith((f"{origin}/", "data:", "blob:"))


# JS: where Material's alternate-language integration looks for a sitemap: next to each alternate link.
SITEMAP_PROBES_JS = """
() => [...document.querySelectorAll("link[rel=alternate]")].map(l => new URL("sitemap.xml", l.href).href)
"""


def unexpected_errors(rec: Recorder, sitemap_probes: list[str]) -> list[str]:
    """Console errors and uncaught exceptions, less the 404s of Material's sitemap probes.

    Material (integrations/alternate) fetches `sitemap.xml` relative to every `<link rel=alternate>` to
    map pages across languages, and falls back to the plain link when that fails. mkdocs-static-i18n
    points those links at pages, not at language roots, so the probes 404 and Chrome logs "Failed to
    load resource" for each. That and only that is tolerated: any other failed load is reported.
    """
    probes = set(sitemap_probes)
    errors = [
        f"console error: {text} ({url})"
        for text, url in rec.console_errors
        if not (url in probes and text.startswith("Failed to load resource") and "404" in text)
    ]
    return errors + [f"uncaught exception: {e}" for e in rec.page_errors]


# --------------------------------------------------------------------------- search


# JS: what the search shows under the box is Material's line for `key` (search.result.none: no matching
# documents; search.result.placeholder: type to start searching) and no result items
_SEARCH_SAYS_JS = """
key => !document.querySelector(".md-search-result__item")
  && document.querySelector(".md-search-result__meta").textContent.trim()
     === JSON.parse(document.getElementById("__config").textContent).translations[key]
"""
# JS: Material has answered the query in the box: result items, or its "no matching documents" line
ANSWERED_JS = f"""
() => document.querySelectorAll(".md-search-result__item").length > 0
  || ({_SEARCH_SAYS_JS})("search.result.none")
"""


def search(page, query: str, timeout_ms: int = 10_000, *, allow_none: bool = False) -> list[str]:
    """Type query into Material's search box; the result pages' URL paths (no query, no fragment), in order.

    Material reacts to key events on the input; insert_text() (needed for CJK) sends none, so a key press
    follows it. A query left in the box by an earlier search is cleared first, and its results waited
    away, so that the paths returned are this query's. No result fails unless allow_none.
    """
    box = page.locator("input[data-md-component=search-query]")
    if not box.is_visible():  # narrow viewports show a search button instead of the field
        page.locator("label.md-header__button[for=__search]").click()
    box.click()
    if box.input_value():
        box.fill("")
        page.keyboard.press("End")
        page.wait_for_function(_SEARCH_SAYS_JS, arg="search.result.placeholder", timeout=timeout_ms)
    page.keyboard.insert_text(query)
    page.keyboard.press("End")
    try:
        page.wait_for_function(ANSWERED_JS, timeout=timeout_ms)
    except Exception as err:  # playwright's TimeoutError: say what the search said instead
        meta = page.locator(".md-search-result__meta").inner_text()
        raise AssertionError(f"search for {query!r} did not answer; the search said: {meta.strip()!r}") from err
    # one item per page, its first link being the page itself, the others its sections
    paths = page.eval_on_selector_all(
        ".md-search-result__item", "items => items.map(li => new URL(li.querySelector('a').href).pathname)"
    )
    if not paths and not allow_none:
        meta = page.locator(".md-search-result__meta").inner_text()
        raise AssertionError(f"search for {query!r} showed no results; the search said: {meta.strip()!r}")
    return paths


# --------------------------------------------------------------------------- accessibility


def run_axe(page, options: dict | None = None) -> list[dict]:
    """axe-core's violations on the loaded page."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_script()))
    return page.evaluate("options => axe.run(document, options).then(r => r.violations)", options or {})


def describe_violations(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} [{v['helpUrl']}]")
        for node in v["nodes"]:
            summary = " / ".join(s.strip() for s in (node.get("failureSummary") or "").splitlines()[1:2])
            lines.append(f"    {' '.join(map(str, node['target']))}: {node['html'][:160]}  -- {summary}")
    return "\n".join(lines)
