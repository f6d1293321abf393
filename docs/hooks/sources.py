"""Sources and errata: the guides this site is built from, where each of their sections is covered,
and what they got wrong. Checked at build time, rendered into the `sources.md` pages.

Data (all in docs/data/):

- `guides.yml`: the five guides, each with its number, title, origin and every section heading;
- `coverage/*.yml`: `{guide, section, page, anchor}`: a page of this site (e.g. `tensors.md`) and a
  heading id on it that covers that guide section;
- `errata/*.yml`: `{id, guide, section, claim: {en, zh}, truth: {en, zh}, snippet, test}`: a wrong
  claim of a guide, what is true instead, the snippet that shows it and the test that pins it.

The build fails (PluginError) when a guide section is covered by no page, when a coverage entry
points at a page or heading id missing in either language, or when an erratum is incomplete or
names a guide, section, snippet or test that does not exist. The `sources.md` pages hold three
placeholders, `<!-- guides -->`, `<!-- coverage -->` and `<!-- errata -->`, replaced here.
"""

from __future__ import annotations

import ast
import functools
import html
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import markdown
import yaml
from mkdocs.exceptions import PluginError

from page_source import LANGUAGES

SOURCES_PAGE = "sources.md"
PLACEHOLDERS = ("<!-- guides -->", "<!-- coverage -->", "<!-- errata -->")
GUIDE_FIELDS = ("number", "title", "title_in_source", "origin", "sections")
COVERAGE_FIELDS = ("guide", "section", "page", "anchor")
ERRATUM_FIELDS = ("id", "guide", "section", "claim", "truth", "snippet", "test")
KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# extensions that do not change headings, or that need more than a page's text to run
SKIP_EXTENSIONS = {"pymdownx.snippets"}

TEXT = {
    "en": {
        "our_title": "the guide has no title; the Chinese one, {}, is ours",
        "original_title": "original title",
        "sections": "{n} sections",
        "coverage_of": "coverage",
        "errata_of": "errata",
        "section_col": "Section of the guide",
        "covered_col": "Where this site covers it",
        "section": "Section “{}”",
        "claim": "What the guide says:",
        "truth": "What is true:",
        "snippet": "Shown by:",
        "test": "Pinned by the test:",
        "errata_count": "{n} claims corrected in all.",
        "no_errata": "No errata recorded yet.",
        "quote": "“{}”",
    },
    "zh": {
        "our_title": "原文没有标题，此标题为本站所加",
        "original_title": "原标题",
        "sections": "共 {n} 个小节",
        "coverage_of": "对照",
        "errata_of": "勘误",
        "section_col": "原文小节",
        "covered_col": "本站讲解之处",
        "section": "所在小节：“{}”",
        "claim": "原文的说法：",
        "truth": "实际情况：",
        "snippet": "示例代码：",
        "test": "对应的测试：",
        "errata_count": "共纠正 {n} 处说法。",
        "no_errata": "目前还没有记录勘误。",
        "quote": "“{}”",
    },
}


class SourcesError(PluginError):
    """The data of the sources page is inconsistent; the message lists every problem found."""


@dataclass
class Entry:
    """One list item of a coverage or errata file, with where it came from."""

    file: str  # relative to the repository root
    index: int  # 1-based position in the file
    data: dict[str, Any]

    @property
    def where(self) -> str:
        name = self.data.get("id") if isinstance(self.data, dict) else None
        return f"{self.file}, entry {self.index}" + (f" (id {name!r})" if name else "")

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


@dataclass
class Sources:
    repo: Path
    docs_dir: Path
    guides: list[dict[str, Any]] = field(default_factory=list)
    coverage: list[Entry] = field(default_factory=list)
    errata: list[Entry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    md_extensions: list[Any] = field(default_factory=list)
    md_configs: dict[str, Any] = field(default_factory=dict)
    _headings: dict[tuple[str, str], dict[str, str] | None] = field(default_factory=dict, repr=False)

    # ---- reading -------------------------------------------------------------------------------

    @property
    def data_dir(self) -> Path:
        return self.docs_dir / "data"

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.repo).as_posix()
        except ValueError:
            return path.as_posix()

    def _load_list(self, path: Path) -> list[Any] | None:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            self.problems.append(f"{self.rel(path)}: cannot be read as YAML: {_one_line(exc)}")
            return None
        if data is None:
            return []
        if not isinstance(data, list):
            self.problems.append(f"{self.rel(path)}: must hold a YAML list of entries, not {type(data).__name__}")
            return None
        return data

    def _load_entries(self, folder: str) -> list[Entry]:
        entries: list[Entry] = []
        for path in sorted((self.data_dir / folder).glob("*.y*ml")):
            for i, item in enumerate(self._load_list(path) or [], start=1):
                if not isinstance(item, dict):
                    self.problems.append(f"{self.rel(path)}, entry {i}: must be a mapping, not {item!r}")
                    continue
                entries.append(Entry(self.rel(path), i, item))
        return entries

    def load(self) -> Sources:
        guides_file = self.data_dir / "guides.yml"
        self.guides = [g for g in self._load_list(guides_file) or [] if isinstance(g, dict)]
        for i, guide in enumerate(self.guides, start=1):
            missing = [k for k in GUIDE_FIELDS if k not in guide]
            if missing:
                self.problems.append(f"{self.rel(guides_file)}, guide {i}: missing {', '.join(missing)}")
            guide["number"] = guide_number(guide.get("number"))
            guide.setdefault("links", [])
            guide.setdefault("sections", [])
        self.coverage = self._load_entries("coverage")
        self.errata = self._load_entries("errata")
        return self

    # ---- looking things up ------------------------------------------------------------------------

    @functools.cached_property
    def guide_by_number(self) -> dict[str, dict[str, Any]]:
        return {g["number"]: g for g in self.guides}

    def section_of(self, guide: str, section: Any) -> str | None:
        """The verbatim heading of guide that section names (whitespace, backticks, width forgiven)."""
        wanted = _norm(str(section))
        return next((s for s in self.guide_by_number[guide]["sections"] if _norm(s) == wanted), None)

    def headings(self, lang: str, page: str) -> dict[str, str] | None:
        """Heading id -> heading (Markdown) of docs/<lang>/<page>, as mkdocs renders it; None if no page."""
        if (lang, page) not in self._headings:
            self._headings[lang, page] = self._read_headings(lang, page)
        return self._headings[lang, page]

    def _read_headings(self, lang: str, page: str) -> dict[str, str] | None:
        path = self.docs_dir / lang / page
        if not path.is_file():
            return None
        md = markdown.Markdown(extensions=self.md_extensions, extension_configs=self.md_configs)
        md.convert(path.read_text(encoding="utf-8"))
        out: dict[str, str] = {}

        def walk(tokens):
            for tok in tokens:
                out[tok["id"]] = _html_to_markdown(tok.get("html", html.escape(tok["name"])))
                walk(tok["children"])

        walk(md.toc_tokens)
        return out

    def page_title(self, lang: str, page: str) -> str:
        path = self.docs_dir / lang / page
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return re.sub(r"\s*\{[^}]*\}\s*$", "", line[2:]).strip()
        return PurePosixPath(page).stem

    # ---- checking -------------------------------------------------------------------------------

    def _check_guide_and_section(self, entry: Entry) -> str | None:
        """The verbatim section the entry names, or None after recording why not."""
        number = guide_number(entry.get("guide"))
        if number not in self.guide_by_number:
            known = ", ".join(self.guide_by_number)
            self.problems.append(f"{entry.where}: unknown guide {entry.get('guide')!r} (known: {known})")
            return None
        section = self.section_of(number, entry.get("section"))
        if section is None:
            known = "; ".join(f"“{s}”" for s in self.guide_by_number[number]["sections"])
            self.problems.append(
                f"{entry.where}: guide {number} has no section “{entry.get('section')}” "
                f"(its sections, from docs/data/guides.yml: {known})"
            )
        return section

    def check(self) -> list[str]:
        for page in (SOURCES_PAGE,):
            for lang in LANGUAGES:
                path = self.docs_dir / lang / page
                text = path.read_text(encoding="utf-8") if path.is_file() else ""
                for placeholder in PLACEHOLDERS:
                    if text.count(placeholder) != 1:
                        self.problems.append(f"{self.rel(path)}: must hold the placeholder {placeholder} exactly once")

        covered: set[tuple[str, str]] = set()
        for entry in self.coverage:
            missing = [k for k in COVERAGE_FIELDS if not entry.get(k)]
            if missing:
                self.problems.append(f"{entry.where}: coverage entry lacks {', '.join(missing)}")
                continue
            section = self._check_guide_and_section(entry)
            ok = True
            for lang in LANGUAGES:
                ids = self.headings(lang, str(entry.get("page")))
                if ids is None:
                    self.problems.append(f"{entry.where}: page docs/{lang}/{entry.get('page')} does not exist")
                    ok = False
                elif str(entry.get("anchor")) not in ids:
                    self.problems.append(
                        f"{entry.where}: docs/{lang}/{entry.get('page')} has no heading with id "
                        f"{entry.get('anchor')!r} (give the heading an explicit {{ #{entry.get('anchor')} }})"
                    )
                    ok = False
            if section is not None and ok:
                covered.add((guide_number(entry.get("guide")), section))

        for guide in self.guides:
            for section in guide["sections"]:
                if (guide["number"], section) not in covered:
                    self.problems.append(
                        f"docs/data/guides.yml: guide {guide['number']}, section “{section}” is covered by no page "
                        "(add a {guide, section, page, anchor} entry to a file in docs/data/coverage/)"
                    )

        seen: dict[str, str] = {}
        for entry in self.errata:
            missing = [k for k in ERRATUM_FIELDS if not entry.get(k)]
            if missing:
                self.problems.append(f"{entry.where}: erratum lacks {', '.join(missing)}")
                continue
            eid = str(entry.get("id"))
            if not KEBAB.match(eid):
                self.problems.append(f"{entry.where}: id must be kebab-case (a-z, 0-9 and single hyphens)")
            if eid in {"guides", "coverage", "errata"} or re.fullmatch(r"(coverage|errata)-\d+", eid):
                self.problems.append(f"{entry.where}: id {eid!r} is taken by a heading of the sources page")
            if eid in seen:
                self.problems.append(f"{entry.where}: id {eid!r} is already used in {seen[eid]}")
            seen.setdefault(eid, entry.file)
            self._check_guide_and_section(entry)
            for key in ("claim", "truth"):
                value = entry.get(key)
                if not isinstance(value, dict) or any(not str(value.get(lang) or "").strip() for lang in LANGUAGES):
                    self.problems.append(f"{entry.where}: {key} must be a mapping with non-empty en and zh texts")
            snippet = str(entry.get("snippet")).split(":", 1)[0]
            if not (self.repo / snippet).is_file():
                self.problems.append(f"{entry.where}: snippet {snippet} does not exist")
            why = unresolved_test(self.repo, str(entry.get("test")))
            if why:
                self.problems.append(f"{entry.where}: test {entry.get('test')!r}: {why}")
        return self.problems

    # ---- rendering ------------------------------------------------------------------------------

    def render_guides(self, lang: str) -> str:
        t = TEXT[lang]
        items = []
        for g in self.guides:
            head = f"**{g['number']} · {_escape(g['title'][lang])}**"
            quoted = t["quote"].format(_escape(g["title"]["zh"]))
            if lang == "en":
                note = f"{t['original_title']}: {quoted}" if g["title_in_source"] else t["our_title"].format(quoted)
                head += f" ({note})"
            elif not g["title_in_source"]:
                head += f"（{t['our_title']}）"
            links = " ".join(f"<{url}>" for url in g["links"])
            anchors = f"[{t['coverage_of']}](#coverage-{g['number']})"
            if any(guide_number(e.get("guide")) == g["number"] for e in self.errata):
                anchors += f" · [{t['errata_of']}](#errata-{g['number']})"
            sections = t["sections"].format(n=len(g["sections"]))
            body = _flow(g["origin"][lang], lang) + (f" {links}" if links else "")
            items.append(f"- {head}  \n  {body}  \n  {sections} · {anchors}")
        return "\n".join(items) + "\n"

    def render_coverage(self, lang: str) -> str:
        t = TEXT[lang]
        out = []
        for g in self.guides:
            out += [f"### {g['number']} · {_escape(g['title'][lang])} {{ #coverage-{g['number']} }}", ""]
            out += [f"| {t['section_col']} | {t['covered_col']} |", "| --- | --- |"]
            for section in g["sections"]:
                links = []
                for entry in self.coverage:
                    if guide_number(entry.get("guide")) != g["number"] or self.section_of(
                        g["number"], entry.get("section")
                    ) != section:
                        continue
                    page, anchor = str(entry.get("page")), str(entry.get("anchor"))
                    heading = (self.headings(lang, page) or {}).get(anchor, anchor)
                    text = f"{_escape(self.page_title(lang, page))} › {heading}"
                    link = f"[{text}]({page}#{anchor})"
                    if link not in links:
                        links.append(link)
                out.append(f"| {_cell(section)} | {'<br>'.join(links)} |")
            out.append("")
        return "\n".join(out)

    def render_errata(self, lang: str) -> str:
        t = TEXT[lang]
        if not self.errata:
            return t["no_errata"] + "\n"
        out = [t["errata_count"].format(n=len(self.errata)), ""]
        for g in self.guides:
            order = {s: i for i, s in enumerate(g["sections"])}
            mine = [e for e in self.errata if guide_number(e.get("guide")) == g["number"]]
            mine.sort(key=lambda e: order.get(self.section_of(g["number"], e.get("section")) or "", len(order)))
            if not mine:
                continue
            out += [f"### {g['number']} · {_escape(g['title'][lang])} {{ #errata-{g['number']} }}", ""]
            for e in mine:
                section = self.section_of(g["number"], e.get("section")) or str(e.get("section"))
                out += [
                    f"#### {e.get('id')} {{ #{e.get('id')} }}",
                    "",
                    f"*{t['section'].format(_escape(section))}*",
                    "",
                    f"**{t['claim']}** {_flow(e.get('claim')[lang], lang)}",
                    "",
                    f"**{t['truth']}** {_flow(e.get('truth')[lang], lang)}",
                    "",
                    f"**{t['snippet']}** `{e.get('snippet')}`  ",
                    f"**{t['test']}** `{e.get('test')}`",
                    "",
                ]
        return "\n".join(out)

    def render(self, text: str, lang: str) -> str:
        renderers = dict(zip(PLACEHOLDERS, (self.render_guides, self.render_coverage, self.render_errata), strict=True))
        for placeholder, render in renderers.items():
            text = text.replace(placeholder, render(lang))
        return text


# ---- helpers used by the tests too -------------------------------------------------------------


def guide_number(value: Any) -> str:
    """"002", 2 (YAML reads an unquoted 002 as 2) -> "002"."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:03d}"
    return str(value or "").strip()


def unresolved_test(repo: Path, test_id: str) -> str | None:
    """Why `path.py::[Class::]test_name[params]` names no test function (parsed with ast), or None."""
    path, sep, rest = test_id.partition("::")
    if not sep or not rest:
        return "must look like tests/test_topic.py::test_name"
    file = repo / path
    if not file.is_file() or file.suffix != ".py":
        return f"{path} is not an existing Python file"
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except SyntaxError as exc:
        return f"{path} does not parse: {exc}"
    *classes, name = rest.split("::")
    name = name.split("[", 1)[0]
    body: list[ast.stmt] = tree.body
    for cls in classes:
        found = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == cls), None)
        if found is None:
            return f"{path} has no class {cls}"
        body = found.body
    funcs = {n.name for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if name not in funcs:
        return f"{path} defines no function {name}"
    if not name.startswith("test"):
        return f"{name} is not a test function (its name must start with 'test')"
    return None


def markdown_options(extensions: list[Any], configs: dict[str, Any] | None = None) -> tuple[list[Any], dict]:
    """mkdocs.yml's `markdown_extensions` (names or {name: options}) -> Markdown() arguments."""
    names: list[Any] = ["toc"]
    options: dict[str, Any] = dict(configs or {})
    for ext in extensions:
        if isinstance(ext, dict):
            for name, opts in ext.items():
                names.append(name)
                options[name] = opts or {}
        else:
            names.append(ext)
    names = [n for n in dict.fromkeys(names) if not (isinstance(n, str) and n in SKIP_EXTENSIONS)]
    return names, {k: v for k, v in options.items() if k in names}


def load(repo: Path, docs_dir: Path | None = None, extensions=None, configs=None) -> Sources:
    """Read and check the data of a repository; mkdocs.yml gives the Markdown settings unless passed."""
    if extensions is None:
        import page_source

        extensions = page_source.mkdocs_config(repo).get("markdown_extensions", [])
    names, options = markdown_options(extensions, configs)
    sources = Sources(repo=repo, docs_dir=docs_dir or repo / "docs", md_extensions=names, md_configs=options)
    sources.load().check()
    return sources


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return re.sub(r"[\s`]+", "", text).rstrip("。.:：")


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


_MD_SPECIAL = re.compile(r"([\\*_\[\]<>|#])")


def _escape(text: str) -> str:
    """Plain text -> Markdown that shows it as is; `code spans` are kept."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # unbalanced backticks: escape them all
        return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("`", r"\`")
    return "`".join(p if i % 2 else _MD_SPECIAL.sub(r"\\\1", p) for i, p in enumerate(parts))


def _cell(text: str) -> str:
    """A guide heading in a table cell: escaped, and `1. x` not read as a list."""
    return _escape(text).replace("|", r"\|")


def _html_to_markdown(fragment: str) -> str:
    """A heading as the toc extension gives it (HTML) -> Markdown for a link text."""
    parts = re.split(r"<code>(.*?)</code>", fragment)
    out = []
    for i, part in enumerate(parts):
        plain = html.unescape(re.sub(r"<[^>]+>", "", part))
        out.append(f"`{plain}`" if i % 2 else _escape(plain))
    return "".join(out)


_CJK_PUNCTUATION = "，。：；、！？（）“”《》「」"
_SPACE_AT_CJK_PUNCTUATION = re.compile(rf"\s+(?=[{_CJK_PUNCTUATION}])|(?<=[{_CJK_PUNCTUATION}])\s+")


def _flow(text: str, lang: str = "en") -> str:
    """Text from YAML as one paragraph: line breaks (folded into spaces by YAML or not) joined, and in
    Chinese no space left next to full-width punctuation, where a folded line break leaves one."""
    flowed = " ".join(str(text).split())
    return _SPACE_AT_CJK_PUNCTUATION.sub("", flowed) if lang == "zh" else flowed


# ---- mkdocs events ----------------------------------------------------------------------------------

_state: dict[str, Sources] = {}


def _check(config) -> Sources:
    repo = Path(config.config_file_path).resolve().parent
    sources = load(repo, Path(config["docs_dir"]), config["markdown_extensions"], config["mdx_configs"])
    if sources.problems:
        raise SourcesError(
            f"sources and errata: {len(sources.problems)} problem(s) in docs/data:\n"
            + "\n".join(f"  - {p}" for p in sources.problems)
        )
    return sources


def on_config(config):
    _state["sources"] = _check(config)  # fail before any page is rendered
    return config


def _language(page, config) -> str:
    first = PurePosixPath(page.file.src_uri).parts[0]
    if first in LANGUAGES:
        return first
    i18n = config.plugins.get("i18n")
    return getattr(i18n, "current_language", None) or LANGUAGES[0]


def on_page_markdown(markdown_text: str, page, config, files) -> str:
    if PurePosixPath(page.file.src_uri).name != SOURCES_PAGE:
        return markdown_text
    sources = _state.get("sources") or _check(config)
    return sources.render(markdown_text, _language(page, config))
