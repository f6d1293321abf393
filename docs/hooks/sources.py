"""Sources and errata: the guides this site is built from, where their sections are covered and what they got
wrong, rendered into the `sources.md` pages (placeholders `<!-- guides -->`, `<!-- coverage -->`,
`<!-- errata -->`); under the heading that shows an erratum's truth, a line links back to it. A reader meets an
erratum by its title, written in each language (`title` in the data); its id is only ever an anchor.

Data, each file checked against docs/data/<kind>.schema.json: `guides.yml`; `coverage/<page>.yml` (guide
sections that docs/<lang>/<page>.md covers, at a heading id); `errata/<page>.yml` (claims whose truth that page
shows, at a heading id). A bad file fails the build with one line naming the file and the field. References are
ordinary links, so MkDocs' `validation` checks their heading ids; tests/test_sources.py asks pytest whether
each erratum's test exists. The words are in docs/data/text/<lang>/sources.yml.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from mkdocs.exceptions import PluginError
from mkdocs.utils.meta import get_data

from site_pages import LANGUAGES, REPO, load_data, load_text

SOURCES_PAGE = "sources.md"
PLACEHOLDERS = ("<!-- guides -->", "<!-- coverage -->", "<!-- errata -->")
# a heading with an explicit id, `## Title { #id }`: the form pages use for every heading that data cites
HEADING = re.compile(r"^#{1,6}[ \t]+(?P<text>.+?)[ \t]*\{[^}\n]*#(?P<id>[\w-]+)[^}\n]*\}[ \t]*$", re.M)


def _read(path: Path, kind: str, repo: Path) -> list[dict]:
    return load_data(path, repo / "docs" / "data" / f"{kind}.schema.json", repo) or []


def load(repo: Path = REPO) -> dict:
    """The guides, coverage, errata and words, checked; coverage and errata entries gain their `page`."""
    data_dir = repo / "docs" / "data"
    guides = _read(data_dir / "guides.yml", "guides", repo)
    sections = [(g["number"], s) for g in guides for s in g["sections"]]
    found: dict[str, list[dict]] = {"coverage": [], "errata": []}
    for kind, entries in found.items():
        for path in sorted((data_dir / kind).glob("*.yml")):
            name, page = path.relative_to(repo).as_posix(), f"{path.stem}.md"
            if missing := [lang for lang in LANGUAGES if not (repo / "docs" / lang / page).is_file()]:
                raise PluginError(f"{name}: the file name names no page (docs/{missing[0]}/{page} does not exist)")
            for i, entry in enumerate(_read(path, kind, repo)):
                if (entry["guide"], entry["section"]) not in sections:
                    section = f"“{entry['section']}” is no section of guide {entry['guide']}"
                    raise PluginError(f"{name}: field '{i}.section': {section} (see docs/data/guides.yml)")
                if kind == "errata" and not (repo / entry["snippet"].split(":", 1)[0]).is_file():
                    raise PluginError(f"{name}: field '{i}.snippet': {entry['snippet']} does not exist")
                entries.append({**entry, "page": page, "file": name})
    covered = {(e["guide"], e["section"]) for e in found["coverage"]}
    if uncovered := [f"guide {g}, section “{s}”" for g, s in sections if (g, s) not in covered]:
        raise PluginError(f"docs/data/guides.yml: {uncovered[0]} is covered by no page (docs/data/coverage/)")
    for e in found["errata"]:
        if [x["id"] for x in found["errata"]].count(e["id"]) > 1:
            raise PluginError(f"{e['file']}: field 'id': {e['id']!r} names another erratum too (ids are anchors)")
    return {"repo": repo, "guides": guides, **found, "text": load_text("sources", repo)}


# ---- rendering -------------------------------------------------------------------------------------


def link(data: dict, lang: str, page: str, anchor: str) -> str:
    """`[Page title › heading](page#anchor)`, read from the page's headings: a link MkDocs checks like any other."""
    text, _ = get_data((data["repo"] / "docs" / lang / page).read_text(encoding="utf-8"))
    title = re.search(r"^# (.+?)(?:\s*\{[^}]*\})?\s*$", text, re.M)
    heading = next((m["text"] for m in HEADING.finditer(text) if m["id"] == anchor), anchor)
    return f"[{_escape(title.group(1) if title else page)} › {heading}]({page}#{anchor})"


def render_guides(data: dict, lang: str) -> str:
    t, items = data["text"][lang], []
    for g in data["guides"]:
        note = t["original_title" if g["title_in_source"] else "our_title"].format(_escape(g["title"]["zh"]))
        head = f"**{g['number']} · {_escape(g['title'][lang])}**{note}"
        links = "".join(f" <{url}>" for url in g["links"])
        anchors = f"[{t['coverage_of']}](#coverage-{g['number']})"
        if any(e["guide"] == g["number"] for e in data["errata"]):
            anchors += f" · [{t['errata_of']}](#errata-{g['number']})"
        sections = t["sections"].format(n=len(g["sections"]))
        items.append(f"- {head}  \n  {_flow(g['origin'][lang], lang)}{links}  \n  {sections} · {anchors}")
    return "\n".join(items) + "\n"


def render_coverage(data: dict, lang: str) -> str:
    t, out = data["text"][lang], []
    for g in data["guides"]:
        out += [f"### {g['number']} · {_escape(g['title'][lang])} {{ #coverage-{g['number']} }}", ""]
        out += [f"| {t['section_col']} | {t['covered_col']} |", "| --- | --- |"]
        for section in g["sections"]:
            here = (e for e in data["coverage"] if (e["guide"], e["section"]) == (g["number"], section))
            links = dict.fromkeys(link(data, lang, e["page"], e["anchor"]) for e in here)
            out.append(f"| {_escape(section)} | {'<br>'.join(links)} |")
        out.append("")
    return "\n".join(out)


def render_errata(data: dict, lang: str) -> str:
    """One table to scan (guide and section, title: a link to the erratum), then each erratum's details, folded,
    grouped by guide. The erratum's id is an anchor only: a reader sees its title, never the id."""
    t = data["text"][lang]
    if not data["errata"]:
        return t["no_errata"] + "\n"
    groups = []
    for g in data["guides"]:
        mine = sorted(
            (e for e in data["errata"] if e["guide"] == g["number"]), key=lambda e: g["sections"].index(e["section"])
        )
        if mine:
            groups.append((g, mine))
    out = [t["errata_count"].format(n=len(data["errata"])), ""]
    # two columns, so that a phone's width leaves the title room: the guide's number leads its section's cell
    out += [f"| {t['where_col']} | {t['title_col']} |", "| --- | --- |"]
    out += [
        f"| {g['number']} · {_escape(e['section'])} | [{_escape(e['title'][lang])}](#{e['id']}) |"
        for g, mine in groups for e in mine
    ]
    out.append("")
    for g, mine in groups:
        out += [f"### {g['number']} · {_escape(g['title'][lang])} {{ #errata-{g['number']} }}", ""]
        for e in mine:
            body = (
                f"*{t['section'].format(_escape(e['section']))}*\n\n"
                f"**{t['claim']}** {_flow(e['claim'][lang], lang)}\n\n"
                f"**{t['truth']}** {_flow(e['truth'][lang], lang)}\n\n"
                f"**{t['shown_at']}** {link(data, lang, e['page'], e['anchor'])}  \n"
                f"**{t['snippet']}** `{e['snippet']}`  \n**{t['test']}** `{e['test']}`"
            )
            # what pymdownx.details makes of `??? note "title"`, written out (md_in_html) to give the <details> the
            # erratum's id: a link to it opens the fold (Material's script, or Chromium itself) and shows its title
            out += [
                f'<details class="note" id="{e["id"]}" markdown="1">',
                f'<summary markdown="span">{_escape(e["title"][lang])}</summary>',
                "", body, "", "</details>", "",
            ]
    return "\n".join(out)


def link_back(markdown: str, page: str, lang: str, data: dict) -> str:
    """Under each heading of the page that shows an erratum's truth, one line per erratum in the page's language:
    the guide it corrects and the erratum's title, linking to its entry on the sources page."""
    for anchor in dict.fromkeys(e["anchor"] for e in data["errata"] if e["page"] == page):
        errata = [e for e in data["errata"] if (e["page"], e["anchor"]) == (page, anchor)]
        heading = next((m for m in HEADING.finditer(markdown) if m["id"] == anchor), None)
        if heading is None:
            raise PluginError(f"{errata[0]['file']}: field 'anchor': docs/{lang}/{page} has no heading {{ #{anchor} }}")
        t = data["text"][lang]
        lines = "  \n".join(_correction(t["corrects"].format(guide=e["guide"]), e, lang) for e in errata)
        line = f"\n\n{lines}\n{{ .erratum-line data-search-exclude }}"  # the page's own words rank it
        markdown = markdown[: heading.end()] + line + markdown[heading.end() :]
    return markdown


def _correction(words: str, erratum: dict, lang: str) -> str:
    """`*Corrects guide 003:* [title](sources.md#id)`; no space after a full-width colon, which has its own."""
    gap = "" if words.endswith(("：", "，", "。")) else " "
    return f"*{words}*{gap}[{_escape(erratum['title'][lang])}]({SOURCES_PAGE}#{erratum['id']})"


_MD_SPECIAL = re.compile(r"([\\*_\[\]<>|#])")


def _escape(text: str) -> str:
    """Plain text -> Markdown that shows it as is, also in a table cell; `code spans` are kept."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # unbalanced backticks: escape them all
        return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("`", r"\`")
    return "`".join(p.replace("|", r"\|") if i % 2 else _MD_SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts))


_SPACE_AT_CJK_PUNCTUATION = re.compile(r"\s+(?=[，。：；、！？（）“”《》「」])|(?<=[，。：；、！？（）“”《》「」])\s+")


def _flow(text: str, lang: str) -> str:
    """YAML text as one paragraph; in Chinese without the spaces that folded line breaks leave at punctuation."""
    flowed = " ".join(str(text).split())
    return _SPACE_AT_CJK_PUNCTUATION.sub("", flowed) if lang == "zh" else flowed


# ---- mkdocs events ---------------------------------------------------------------------------------

_data: dict = {}


def on_config(config):
    _data.update(load(Path(config.config_file_path).resolve().parent))  # fail before any page is rendered
    return config


def on_page_markdown(markdown_text: str, page, config, files) -> str:
    path = PurePosixPath(page.file.src_uri)
    i18n = config.plugins.get("i18n")
    lang = path.parts[0] if path.parts[0] in LANGUAGES else getattr(i18n, "current_language", LANGUAGES[0])
    if path.name != SOURCES_PAGE:
        return link_back(markdown_text, path.name, lang, _data)
    renderers = (render_guides, render_coverage, render_errata)
    for placeholder, render in zip(PLACEHOLDERS, renderers, strict=True):
        markdown_text = markdown_text.replace(placeholder, render(_data, lang))
    return markdown_text
