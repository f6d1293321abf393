"""The site's one 404 page: in the default language, its language links leading to each language's home.

A server has one 404.html for every missing address, and each language's build writes it: mkdocs-static-i18n
builds the other languages after the default one, so the last language's 404 page won, with the language
links of the last page built (ultrabug/mkdocs-static-i18n#284). Glue where the two plugins meet: the default
build's 404 page is kept and written back at the end of every language's build.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.plugins import event_priority

from site_pages import LANGUAGES

PAGE = "404.html"
_kept: dict[str, str] = {}  # the default language's 404 page, as its build rendered it


def home_links(site_url: str | None) -> dict[str, str]:
    """Each language's home, as an absolute path under the site's own path ('/', '/zh/'; '/repo/', '/repo/zh/')."""
    base = urlsplit(site_url or "/").path.rstrip("/") + "/"
    return {lang: base + ("" if lang == LANGUAGES[0] else f"{lang}/") for lang in LANGUAGES}


def on_pre_template(template, template_name: str, config):
    if template_name == PAGE:  # a page of no language's own: the switch leads to each language's home
        homes = home_links(config.site_url)
        for alternate in config.extra.get("alternate", []):
            alternate["link"] = homes.get(alternate.get("lang"), alternate["link"])
    return template


def on_post_template(output: str, template_name: str, config) -> str:
    if template_name == PAGE and config.theme["language"] == LANGUAGES[0]:
        _kept[PAGE] = output
    return output


@event_priority(-110)  # after mkdocs-static-i18n's on_post_build (-100), which builds the other languages
def on_post_build(config) -> None:
    # every language's build ends here, the default's last: each puts the default's page back
    if PAGE in _kept:
        (Path(config.site_dir) / PAGE).write_text(_kept[PAGE], encoding="utf-8")
