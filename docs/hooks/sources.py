"""Sources and errata: the guides this site is built from, where their sections are covered and what they got
wrong, rendered into the `sources.md` pages (placeholders `<!-- guides -->`, `<!-- coverage -->`,
`<!-- errata -->`); after the text under the heading that shows an erratum's truth, a line links back to it. A
reader meets an erratum by its title, written in each language (`title` in the data); its id is only ever an anchor.

Data, each file checked against docs/data/<kind>.schema.json: `guides.yml`; `coverage/<page>.yml` (guide
sections that docs/<lang>/<page>.md covers, at a heading id); `errata/<page>.yml` (claims whose truth that page
shows, at a heading id). A bad file fails the build with one line naming the file and the field. References are
ordinary links, so MkDocs' `validation` checks their heading ids. An erratum's test is the one marked
`@pytest.mark.erratum("<id>")` in tests/ (the mark is the only link; tests/test_sources.py checks that every erratum
has one and every mark names an erratum). This module computes what the pages say (*_facts: plain data); the templates
docs/overrides/sources/*.md lay it out, with the words of docs/data/text/<lang>/sources.yml.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path, PurePosixPath

from mkdocs.exceptions import PluginError
from mkdocs.utils.meta import get_data

from site_pages import LANGUAGES, REPO, flow, load_data, load_text, templates

SOURCES_PAGE = "sources.md"
PLACEHOLDERS = {"<!-- guides -->": "guides", "<!-- coverage -->": "coverage", "<!-- errata -->": "errata"}
# a heading with an explicit id, `## Title { #id }`: the form pages use for every heading that data cites
HEADING = re.compile(r"^#{1,6}[ \t]+(?P<text>.+?)[ \t]*\{[^}\n]*#(?P<id>[\w-]+)[^}\n]*\}[ \t]*$", re.M)


def _read(path: Path, kind: str, repo: Path) -> list[dict]:
    return load_data(path, repo / "docs" / "data" / f"{kind}.schema.json", repo) or []


def erratum_marks(repo: Path = REPO) -> dict[str, list[str]]:
    """Erratum id -> the tests (path::function) whose `@pytest.mark.erratum(...)` names it, read from tests/."""
    marks: dict[str, list[str]] = {}
    for path in sorted((repo / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                for deco in node.decorator_list:
                    if isinstance(deco, ast.Call) and ast.unparse(deco.func) == "pytest.mark.erratum":
                        for arg in deco.args:
                            marks.setdefault(arg.value, []).append(f"{path.relative_to(repo).as_posix()}::{node.name}")
    return marks


def load(repo: Path = REPO) -> dict:
    """The guides, coverage, errata and words, checked; coverage and errata entries gain their `page`, errata their
    `tests` (from the marks)."""
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
    tests = erratum_marks(repo)
    for e in found["errata"]:
        e["tests"] = tests.get(e["id"], [])
        if [x["id"] for x in found["errata"]].count(e["id"]) > 1:
            raise PluginError(f"{e['file']}: field 'id': {e['id']!r} names another erratum too (ids are anchors)")
    return {"repo": repo, "guides": guides, **found, "text": load_text("sources", repo)}


# ---- what the pages say ----------------------------------------------------------------------------


def target(data: dict, lang: str, page: str, anchor: str) -> dict:
    """Where a link to a heading goes and what it says: {"page", "anchor", "title": the page's title, "heading": the
    heading's text}, read from the page in lang; the link is an ordinary one, which MkDocs checks like any other."""
    text, _ = get_data((data["repo"] / "docs" / lang / page).read_text(encoding="utf-8"))
    title = re.search(r"^# (.+?)(?:\s*\{[^}]*\})?\s*$", text, re.M)
    heading = next((m["text"] for m in HEADING.finditer(text) if m["id"] == anchor), anchor)
    return {"page": page, "anchor": anchor, "title": title.group(1) if title else page, "heading": heading}


def guides_facts(data: dict, lang: str) -> dict:
    """The guides, and the numbers of those with errata (their entries link to them)."""
    return {"guides": data["guides"], "with_errata": {e["guide"] for e in data["errata"]}}


def coverage_facts(data: dict, lang: str) -> dict:
    """Per guide, each of its sections with the headings that cover it: {"guide", "sections": [{"section",
    "links": [target, ...]}]}, each heading once."""
    coverage = []
    for g in data["guides"]:
        sections = []
        for section in g["sections"]:
            here = [e for e in data["coverage"] if (e["guide"], e["section"]) == (g["number"], section)]
            places = dict.fromkeys((e["page"], e["anchor"]) for e in here)
            sections.append({"section": section, "links": [target(data, lang, *place) for place in places]})
        coverage.append({"guide": g, "sections": sections})
    return {"coverage": coverage}


def errata_facts(data: dict, lang: str) -> dict:
    """The errata grouped by guide, in the order of the guide's sections: {"count", "groups": [{"guide", "errata":
    [erratum with "shown_at", the target of the heading that shows its truth]}]}."""
    groups = []
    for g in data["guides"]:
        mine = sorted(
            (e for e in data["errata"] if e["guide"] == g["number"]), key=lambda e: g["sections"].index(e["section"])
        )
        if mine:
            errata = [e | {"shown_at": target(data, lang, e["page"], e["anchor"])} for e in mine]
            groups.append({"guide": g, "errata": errata})
    return {"count": len(data["errata"]), "groups": groups}


FACTS = {"guides": guides_facts, "coverage": coverage_facts, "errata": errata_facts}


def render(part: str, data: dict, lang: str, **facts) -> str:
    """The template docs/overrides/sources/<part>.md in lang, with the words of docs/data/text/<lang>/sources.yml and
    the facts (for the sources page's parts, FACTS[part]'s); _escape and _flow are its `escape` and `flow`."""
    facts = facts or FACTS[part](data, lang)
    template = templates().get_template(f"sources/{part}.md")
    return template.render(t=data["text"][lang], lang=lang, escape=_escape, flow=_flow, **facts).strip("\n")


def link_back(markdown: str, page: str, lang: str, data: dict) -> str:
    """At the end of the text under each heading of the page that shows an erratum's truth (before the next
    heading), one line per erratum in the page's language: the guide it corrects and the erratum's title, linking
    to its entry on the sources page. After the section's answer, not above it: three such lines once stood
    between the Tensors page's first heading and its first code."""
    for anchor in dict.fromkeys(e["anchor"] for e in data["errata"] if e["page"] == page):
        errata = [e for e in data["errata"] if (e["page"], e["anchor"]) == (page, anchor)]
        headings = list(HEADING.finditer(markdown))
        heading = next((m for m in headings if m["id"] == anchor), None)
        if heading is None:
            raise PluginError(f"{errata[0]['file']}: field 'anchor': docs/{lang}/{page} has no heading {{ #{anchor} }}")
        end = next((m.start() for m in headings if m.start() > heading.start()), len(markdown))
        lines = render("corrections", data, lang, errata=errata, sources_page=SOURCES_PAGE)
        markdown = markdown[:end].rstrip("\n") + "\n\n" + lines + "\n\n" + markdown[end:]
    return markdown


_MD_SPECIAL = re.compile(r"([\\*_\[\]<>|#])")


def _escape(text: str) -> str:
    """Plain text -> Markdown that shows it as is, also in a table cell; `code spans` are kept."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # unbalanced backticks: escape them all
        return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("`", r"\`")
    return "`".join(p.replace("|", r"\|") if i % 2 else _MD_SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts))


_flow = flow  # YAML text as one paragraph, in Chinese without the spaces that folded line breaks leave (site_pages)


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
    for placeholder, part in PLACEHOLDERS.items():
        markdown_text = markdown_text.replace(placeholder, render(part, _data, lang) + "\n")
    return markdown_text
