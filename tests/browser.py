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


class Recorder:
    """Everything a page requested and every error it logged, from the moment it is made."""

    def __init__(self, page):
        self.requests, self.console_errors, self.page_errors = [], [], []  # console: (text, url of the location)
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("console", lambda m: m.type == "error" and self.console_errors.append((m.text, m.location["url"])))
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))

    def outside(self, origin: str) -> list[str]:
        return [u for u in self.requests if not u.startswith((f"{origin}/", "data:", "blob:"))]

    def unexpected_errors(self, page=None) -> list[str]:
        """Console errors and uncaught exceptions: none is expected on any page (page: unused, kept for callers)."""
        errors = [f"console error: {text} ({url})" for text, url in self.console_errors]
        return errors + [f"uncaught exception: {e}" for e in self.page_errors]


AXE = Path(importlib.util.find_spec("axe_playwright_python").origin).parent / "axe.min.js"  # vendored: no CDN
PALETTE_TOGGLE = "form[data-md-component=palette] label:not([hidden])"
# the axe rules whose outcome depends on the colour scheme (run again in the dark scheme), and the attribute that
# marks the elements each one checks (see below; axe may name an element by it in a report)
CHECKED_BY = {"color-contrast": "data-colour-checked", "link-in-text-block": "data-link-colour-checked"}
# JS: axe-core in the light scheme (every rule, one run), then, after the palette toggle, in the dark scheme (the
# colour rules): {scheme: the one the page opened in, light: violations, dark: violations, or null if the toggle
# did not switch, absent if there is none}.
# The colour rules check each colour pairing once per scheme and page. Whether text passes color-contrast follows
# from its colour, size, weight, shadow and stroke and from what lies under it (its backgrounds down to the first
# opaque one, the opacity it is drawn with); link-in-text-block adds the link's decoration and the text of the block
# around it. So in each scheme the first shown element of each pairing is marked, and the rules check only what is
# marked: a page's thousands of code tokens and table cells share a few dozen pairings (the colour checks were 60-80 %
# of a page's axe time; six pages' axe 40 s -> 24 s). Marked every time, as the pairing cannot describe them: text
# over an image or gradient, under a filter or blend, in a box placed over others (absolute, fixed), beside a
# ::before/::after with a background, or not shown (axe decides). The marks reach axe through the rules' selectors:
# axe matches each element against every `exclude`d one, and a selector that only leaves repeats out has axe try
# its `matches` on every element (the MNIST notebook page's colour run: 1.4 s that way, 1.0 s with the marks).
# It waits for a timer first, so that evaluate() returns at once and pages in other contexts run axe side by
# side (one per core); the wait for the scheme is bounded.
_AXE_BOTH_SCHEMES_JS = """
async ([toggle, CHECKED_BY]) => {
  const pause = ms => new Promise(ok => setTimeout(ok, ms));
  const scheme = () => document.body.getAttribute("data-md-color-scheme");
  const run = async options => (await axe.run(document, {resultTypes: ["violations"], ...options})).violations;
  const LINKS = "a[href], [role=link]";  // link-in-text-block's own selector
  const style = (e, pseudo) => getComputedStyle(e, pseudo);
  const alpha = colour => colour.startsWith("rgba(") ? parseFloat(colour.split(",")[3]) : 1;
  // under each element: {under: its backgrounds down to the first opaque one, opacity, plain: nothing else}
  const grounds = new Map();
  const ground = e => {
    if (!e) return {under: "", opacity: 1, plain: true};
    if (!grounds.has(e)) {
      const s = style(e), up = ground(e.parentElement), a = alpha(s.backgroundColor);
      const under = a >= 1 ? s.backgroundColor : a > 0 ? `${s.backgroundColor} over ${up.under}` : up.under;
      const plain = up.plain && s.backgroundImage === "none" && s.filter === "none" && s.mixBlendMode === "normal"
        && s.position !== "absolute" && s.position !== "fixed";
      grounds.set(e, {under, opacity: up.opacity * parseFloat(s.opacity), plain});
    }
    return grounds.get(e);
  };
  const decorated = e => ["::before", "::after"].some(p => {
    const s = style(e, p);
    return s.content !== "none" && (alpha(s.backgroundColor) > 0 || s.backgroundImage !== "none");
  });
  const shown = e => e.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})
    && e.offsetWidth > 1 && e.offsetHeight > 1;
  const ownText = e => [...e.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.nodeValue.trim());
  const textPairing = e => {
    const s = style(e), g = ground(e);
    return [s.color, s.fontSize, s.fontWeight, s.textShadow, s.webkitTextStrokeWidth, s.webkitTextStrokeColor,
            g.under, g.opacity].join("|");
  };
  const BLOCKS = ["block", "list-item", "table", "flex", "grid", "inline-block"];  // axe's, with table-*
  const isBlock = e => {
    const display = style(e).display;
    return BLOCKS.includes(display) || display.startsWith("table-");
  };
  const block = e => {  // the block a link sits in, as link-in-text-block looks for it
    let b = e.parentElement;
    while (b && !isBlock(b)) b = b.parentElement;
    return b;
  };
  const linkPairing = e => {  // and what link-in-text-block compares between the link and its block
    const looks = x => ["textDecoration", "fontStyle", "fontWeight", "fontSize", "fontFamily"].map(p => style(x)[p]);
    const lines = ["borderTop", "borderBottom", "outline"].flatMap(p => ["Style", "Width", "Color"].map(q => p + q));
    const b = block(e), s = style(e);
    return [textPairing(e), ...looks(e), ...lines.map(p => s[p]), style(e, "::before").content,
            style(e, "::after").content, b ? style(b).color : "", ...(b ? looks(b) : []),
            !b || b.textContent.trim() === e.textContent.trim()].join("|");
  };
  const markChecked = () => {
    grounds.clear();
    for (const name of Object.values(CHECKED_BY))
      for (const e of document.querySelectorAll(`[${name}]`)) e.removeAttribute(name);
    const seen = new Set();
    const mark = (e, rule, pairing) => {  // checked unless its pairing was seen on a shown element before
      if (ground(e).plain && !decorated(e) && shown(e)) {
        const key = `${rule}:${pairing(e)}`;
        if (seen.has(key)) return;
        seen.add(key);
      }
      e.setAttribute(CHECKED_BY[rule], "");
    };
    for (const e of document.body.querySelectorAll("*")) if (ownText(e)) mark(e, "color-contrast", textPairing);
    // a link without text is never checked: axe's link-in-text-block-matches refuses an empty innerText (a code
    // block's line anchors, hundreds on a long page, were a second of axe there)
    for (const e of document.body.querySelectorAll(LINKS))
      if (e.textContent.trim()) mark(e, "link-in-text-block", linkPairing);
  };
  const colourRules = Object.keys(CHECKED_BY);
  axe.configure({rules: colourRules.map(id => ({id, selector: `[${CHECKED_BY[id]}]`}))});
  await pause(0);
  markChecked();
  const found = {scheme: scheme(), light: await run({})};
  const label = document.querySelector(toggle);
  if (!label) return found;
  label.click();
  for (let i = 0; i < 100 && scheme() !== "slate"; i++) await pause(50);
  await Promise.all(document.getAnimations().map(a => a.finished));  // colour transitions
  markChecked();
  found.dark = scheme() === "slate" ? await run({runOnly: {type: "rule", values: colourRules}}) : null;
  return found;
}
"""

def start_axe(page) -> None:
    """Start axe on the loaded page in both schemes; `window.axeFound` is the promise of what it finds."""
    page.add_script_tag(path=str(AXE))
    args = [PALETTE_TOGGLE, CHECKED_BY]
    page.evaluate(f"args => {{ window.axeFound = ({_AXE_BOTH_SCHEMES_JS})(args) }}", args)


def describe_violations(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} [{v['helpUrl']}]")
        for node in v["nodes"]:
            summary = " / ".join(s.strip() for s in (node.get("failureSummary") or "").splitlines()[1:2])
            lines.append(f"    {' '.join(map(str, node['target']))}: {node['html'][:160]}  -- {summary}")
    return "\n".join(lines)
