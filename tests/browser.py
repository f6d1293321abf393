"""The browser tests' plumbing, a pytest plugin of the test_browser_*.py files: the built site served on
localhost, Chromium driven by Playwright, what a page requested and logged, and axe-core.

PYTEST_DONT_REWRITE: the test files import helpers from here before pytest loads it as their plugin, too
late to rewrite asserts (this module has none), which pytest would warn about.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

# Debian's packages, first choice first: the headless shell is Chromium's engine without the desktop browser
# around it, what Playwright itself runs headless tests in (the browser tests took 173 s with it, 212 s with
# `chromium`, on a 2-core machine)
BROWSERS = ("chromium-headless-shell", "chromium")
# besides Playwright's own flags for headless runs (no sandbox, no background networking, sync or updates)
CHROMIUM_ARGS = ["--disable-gpu", "--disable-quic"]
DESKTOP = {"width": 1280, "height": 900}


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a browser that drops a connection mid-response (it navigated on) is no server error
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def origin(built_site):
    """The built site served on a free localhost port, e.g. http://127.0.0.1:40123 (no trailing slash)."""
    server = _QuietServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(built_site)))
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()  # shutdown() has returned once serve_forever() has, so the thread is done


@pytest.fixture(scope="session")
def browser():
    if (chromium := next(filter(None, map(shutil.which, BROWSERS)), None)) is None:
        message = "Chromium is not installed (apt-get install chromium-headless-shell)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; CI must run the browser tests", pytrace=False)
        pytest.skip(message)
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(scope="session")
def new_context(browser):
    """Make a browser context (own storage, own permissions); closing the browser closes what is left open."""

    def make(**options):
        context = browser.new_context(**{"viewport": DESKTOP, **options})
        context.set_default_timeout(15_000)
        return context

    return make


_SITEMAP_PROBES_JS = (
    "() => [...document.querySelectorAll('link[rel=alternate]')].map(l => new URL('sitemap.xml', l.href).href)"
)


class Recorder:
    """Everything a page requested and every error it logged, from the moment it is made."""

    def __init__(self, page):
        self.requests, self.console_errors, self.page_errors = [], [], []  # console: (text, url of the location)
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("console", lambda m: m.type == "error" and self.console_errors.append((m.text, m.location["url"])))
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))

    def outside(self, origin: str) -> list[str]:
        return [u for u in self.requests if not u.startswith((f"{origin}/", "data:", "blob:"))]

    def unexpected_errors(self, page) -> list[str]:
        """Console errors and uncaught exceptions, less the 404s of Material's sitemap probes.

        Material (integrations/alternate) fetches `sitemap.xml` relative to every `<link rel=alternate>` to
        map pages across languages, and falls back to the plain link when that fails. mkdocs-static-i18n
        points those links at pages, not at language roots, so the probes 404 and Chrome logs "Failed to
        load resource" for each. That and only that is tolerated: any other failed load is reported.
        """
        probes = set(page.evaluate(_SITEMAP_PROBES_JS))
        errors = [
            f"console error: {text} ({url})"
            for text, url in self.console_errors
            if not (url in probes and text.startswith("Failed to load resource") and "404" in text)
        ]
        return errors + [f"uncaught exception: {e}" for e in self.page_errors]


AXE = Path(importlib.util.find_spec("axe_playwright_python").origin).parent / "axe.min.js"  # vendored: no CDN
PALETTE_TOGGLE = "form[data-md-component=palette] label:not([hidden])"
# the axe rules whose outcome depends on the colour scheme (run again in the dark scheme)
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
# JS: axe-core in the light scheme (every rule, one run), then, after the palette toggle, in the dark scheme (the
# colour rules): {scheme: the one the page opened in, light: violations, dark: violations, or null if the toggle
# did not switch, absent if there is none}. A code token's colour comes from its Pygments class alone, so the colour
# rules check the first token of each class on the page and skip its repeats (all of a long page's code took
# seconds a scheme; a notebook page's cells, mkdocs-jupyter's highlight-ipynb, 2-3x its axe time); the code
# blocks' own text (outputs) is checked in full. The repeats leave through color-contrast's selector (its default
# is every element), not through the run's `exclude`: axe matches each element against every excluded one, and
# thousands of them took longer than the contrast checks they saved (the MNIST page's colour run: 12-16 s with
# `exclude`, 7-10 s with the selector, the same 396 elements checked).
# It waits for a timer first, so that evaluate() returns at once and pages in other contexts run axe side by
# side (one per core); the wait for the scheme is bounded.
_AXE_BOTH_SCHEMES_JS = """
async ([toggle, colourRules]) => {
  const TOKENS = "div.highlight code span[class], div.highlight-ipynb pre span[class]";  // pages', notebooks' cells
  const pause = ms => new Promise(ok => setTimeout(ok, ms));
  const scheme = () => document.body.getAttribute("data-md-color-scheme");
  const run = async options => (await axe.run(document, {resultTypes: ["violations"], ...options})).violations;
  const seen = new Set();
  for (const token of document.querySelectorAll(TOKENS)) {
    if (seen.has(token.className)) token.setAttribute("data-colour-repeat", "");
    seen.add(token.className);
  }
  axe.configure({rules: [{id: "color-contrast", selector: "*:not([data-colour-repeat])"}]});
  await pause(0);
  const found = {scheme: scheme(), light: await run({})};
  const label = document.querySelector(toggle);
  if (!label) return found;
  label.click();
  for (let i = 0; i < 100 && scheme() !== "slate"; i++) await pause(50);
  await Promise.all(document.getAnimations().map(a => a.finished));  // colour transitions
  found.dark = scheme() === "slate" ? await run({runOnly: {type: "rule", values: colourRules}}) : null;
  return found;
}
"""

def start_axe(page) -> None:
    """Start axe on the loaded page in both schemes; `window.axeFound` is the promise of what it finds."""
    page.add_script_tag(path=str(AXE))
    args = [PALETTE_TOGGLE, COLOUR_RULES]
    page.evaluate(f"args => {{ window.axeFound = ({_AXE_BOTH_SCHEMES_JS})(args) }}", args)


def describe_violations(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} [{v['helpUrl']}]")
        for node in v["nodes"]:
            summary = " / ".join(s.strip() for s in (node.get("failureSummary") or "").splitlines()[1:2])
            lines.append(f"    {' '.join(map(str, node['target']))}: {node['html'][:160]}  -- {summary}")
    return "\n".join(lines)
