"""Home routes a reader, and the language switch keeps their place: in Chromium, as a reader meets them."""

from __future__ import annotations

import pytest

from browser import Recorder
from site_pages import LANGUAGES

pytest_plugins = ["browser"]

DESKTOP_SCREEN = 900  # the height of the desktop viewport (browser.DESKTOP)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_home_shows_its_entry_points_in_the_first_screen(new_context, origin, lang):
    context = new_context()
    page = context.new_page()
    rec = Recorder(page)
    page.goto(f"{origin}/{'' if lang == LANGUAGES[0] else lang + '/'}", wait_until="load")
    cards = page.locator(".md-content .grid.cards > ul > li")
    assert cards.count() >= 5
    bottoms = [cards.nth(i).bounding_box() for i in range(cards.count())]
    assert all(b["y"] + b["height"] <= DESKTOP_SCREEN for b in bottoms), bottoms  # no scrolling to see them
    targets = [cards.nth(i).locator("a").first.get_attribute("href") for i in range(cards.count())]
    assert any("quickstart" in t for t in targets) and any("troubleshooting" in t for t in targets)
    assert rec.unexpected_errors(page) == []
    context.close()


@pytest.mark.parametrize(("start", "other"), [("ddp/#multi-node", "zh/ddp/#multi-node"),
                                               ("zh/ddp/#multi-node", "ddp/#multi-node")])
def test_the_language_switch_keeps_the_anchor(new_context, origin, start, other):
    context = new_context()
    page = context.new_page()
    page.goto(f"{origin}/{start}", wait_until="load")
    page.locator(".md-header .md-select").first.hover()
    target = "zh" if not start.startswith("zh/") else "en"
    page.locator(f".md-header .md-select a[hreflang='{target}']").first.click()
    page.wait_for_url(f"{origin}/{other}")
    assert page.url == f"{origin}/{other}"
    context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_mnist_opens_with_what_we_found_and_the_chart(new_context, origin, lang):
    """The MNIST page answers first: its findings and the chart lie within the first two screens at 1280 px, the
    records folded below them."""
    context = new_context()
    page = context.new_page()
    rec = Recorder(page)
    page.goto(f"{origin}/{'' if lang == LANGUAGES[0] else lang + '/'}mnist/", wait_until="load")
    found = page.locator(".md-content .admonition.success").first
    chart = page.locator(".md-content figure.benchmark-chart svg").first
    for element in (found, chart):
        box = element.bounding_box()
        assert box["y"] + box["height"] <= 2 * DESKTOP_SCREEN, box
    assert found.locator("li").count() >= 3  # a few sentences, not one
    records = page.locator(".md-content details").filter(has=page.locator(".benchmark-table"))
    assert records.count() == 1 and records.get_attribute("open") is None  # folded until asked for
    assert rec.unexpected_errors(page) == []
    context.close()


@pytest.mark.parametrize(("old", "new"), [("multi-gpu/#fsdp", "fsdp/#fsdp"),
                                          ("zh/performance/#threads-torchrun", "zh/cpu-threads/#threads-torchrun"),
                                          ("gpu-memory/#peak", "gpu-memory/#peak")])
def test_an_old_link_to_a_section_that_moved_lands_on_it(new_context, origin, old, new):
    """A bookmark from before the split (mkdocs.yml, extra.moved_sections) reaches its section on the new page; an
    anchor the old page kept stays put. Every other old anchor is checked in the built HTML
    (tests/test_moved_sections.py)."""
    context = new_context()
    page = context.new_page()
    rec = Recorder(page)
    page.goto(f"{origin}/{old}", wait_until="load")
    page.wait_for_url(f"{origin}/{new}")
    assert page.evaluate("document.getElementById(decodeURIComponent(location.hash.slice(1))) !== null")
    assert rec.unexpected_errors(page) == []
    context.close()
