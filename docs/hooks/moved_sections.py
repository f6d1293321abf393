"""Old links to a section that moved to a page of its own (docs/data/moved_sections.yml) land on that section.

Glue, because mkdocs-redirects maps whole pages, and the old pages still exist (each is the first page of its part
of the menu): only some of their #anchors moved. docs/overrides/main.html writes into each old page the address of every
section that left it; docs/javascripts/moved_sections.js follows it when the page is opened at such an anchor.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError

from site_pages import REPO, language_of, load_data

MOVED = Path("docs/data/moved_sections.yml")
SCHEMA = Path("docs/data/moved_sections.schema.json")
_moved: dict[str, dict[str, str]] = {}


def moved_away(moved: dict[str, dict[str, str]], page: str) -> dict[str, str]:
    """The sections that left page (a path under docs/<lang>/): anchor -> the page that has it now."""
    return {anchor: new for anchor, new in moved.get(page, {}).items() if new != page}


def on_pre_build(config) -> None:
    _moved.clear()
    _moved.update(load_data(REPO / MOVED, REPO / SCHEMA))


def on_page_markdown(markdown: str, page, config, files) -> str:
    """An old page's moved sections, anchor -> address from this page, for docs/overrides/main.html to write."""
    lang = language_of(page.file.src_uri)
    name = page.file.src_uri.removeprefix(f"{lang}/")
    addresses = {}
    for anchor, new in moved_away(_moved, name).items():
        target = files.src_uris.get(f"{lang}/{new}")
        if target is None:
            raise PluginError(f"{MOVED}: field '{name}.{anchor}': docs/{lang}/{new} does not exist")
        addresses[anchor] = target.url_relative_to(page.file)
    if addresses:
        page.meta["moved_sections"] = addresses
    return markdown
