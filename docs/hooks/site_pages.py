"""The site's pages as data, one home for the build hooks, the tests and tools: where pages live, their
language and URL, their code fences, and a page's text as it runs (includes expanded by pymdownx.snippets,
code comments in the page's language). Settings are read from mkdocs.yml with MkDocs' own YAML loader."""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import json
import math
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import jsonschema
import markdown
import yaml
from jsonschema.exceptions import best_match
from mkdocs.exceptions import PluginError
from mkdocs.utils.yaml import yaml_load
from pymdownx.snippets import SnippetExtension, SnippetPreprocessor
from pytest_codeblocks import CodeBlock, extract_from_buffer

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SNIPPETS = REPO / "snippets"
RUN_SYNTAXES = frozenset({"python", "sh", "bash"})  # the info strings pytest-codeblocks executes
INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+"([^"]+)"[ \t]*$', re.M)
# a fence, with the `<!-- pytest.mark.x -->` lines right above it
FENCE = re.compile(r"(?P<marks>(?:^[ \t]*<!--\s*pytest\.mark\.\w+.*?-->[ \t]*\n)*)"
                   r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<info>[^`\n]*)\n(?P<code>.*?)^(?P=indent)(?P=ticks)[ \t]*$",
                   re.M | re.S)
MARK = re.compile(r"pytest\.mark\.(\w+)")


class BlockMark(NamedTuple):
    """What a `<!-- pytest.mark.x -->` above a fence says about the machines that run the block."""

    fewest_gpus: int  # CUDA GPUs, at least ...
    most_gpus: float  # ... and at most; on any other machine the tests skip it,
    skip_reason: str  # saying this (the verification stamp counts such skips)
    notebook_tag: str  # the tag of its cell in the page's notebook


BLOCK_MARKS = {
    "cuda": BlockMark(1, math.inf, "needs a CUDA GPU", "needs-cuda"),
    "multi_gpu": BlockMark(2, math.inf, "needs two or more CUDA GPUs", "needs-multi-gpu"),
    "no_cuda": BlockMark(0, 0, "shows the output of a machine without a CUDA GPU", "output-shown-for-cpu"),
}


@functools.cache
def settings(repo: Path = REPO) -> dict:
    """mkdocs.yml as a plain dict (MkDocs' loader, so its !ENV and !!python tags are understood)."""
    with open(repo / "mkdocs.yml", encoding="utf-8") as f:
        return yaml_load(f)


def nav_part(title: str, repo: Path = REPO) -> list[str]:
    """The pages of one part of mkdocs.yml's menu ("Several GPUs"), in menu order: a part's pages, new ones too."""
    part = next(item[title] for item in settings(repo)["nav"] if isinstance(item, dict) and title in item)
    return [page for entry in part for page in entry.values()]


# the default language first: it is served at the site root, the others under /<locale>/
LANGUAGES = tuple(lang["locale"] for lang in sorted(
    next(p["i18n"]["languages"] for p in settings()["plugins"] if isinstance(p, dict) and "i18n" in p),
    key=lambda lang: not lang.get("default")))


def language_of(src_uri: str) -> str:
    """A page's language from its path under docs/ ("zh/devices.md" -> "zh"), as mkdocs-static-i18n sees it."""
    return src_uri.split("/", 1)[0]


def language_of_url(url: str) -> str:
    """A built page's language from its URL path under the site root ("zh/devices/" -> "zh", "devices/" -> "en")."""
    first = url.lstrip("/").split("/", 1)[0]
    return first if first in LANGUAGES[1:] else LANGUAGES[0]


@dataclass(frozen=True)
class Page:
    """One Markdown page of one language, and where the built site serves it."""

    lang: str
    name: str  # the path under docs/<lang>/, the same in every language: "devices.md"

    @property
    def path(self) -> Path:
        return DOCS / self.lang / self.name

    @property
    def stem(self) -> str:
        return self.name.removesuffix(".md")

    @property
    def url(self) -> str:
        """The URL path under the site root, no leading slash: "", "devices/", "zh/devices/"."""
        page = "" if self.stem == "index" else f"{self.stem}/"
        return page if self.lang == LANGUAGES[0] else f"{self.lang}/{page}"

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def other(self, lang: str) -> Page:
        return Page(lang, self.name)


def pages(lang: str | None = None) -> list[Page]:
    return [Page(lg, p.relative_to(DOCS / lg).as_posix())
            for lg in ((lang,) if lang else LANGUAGES) for p in sorted((DOCS / lg).rglob("*.md"))]


@dataclass(frozen=True)
class Fence:
    """One fenced code block as the page shows it."""

    info: str  # the whole info string: "python", 'python title="x"', "text"
    code: str
    marks: tuple[str, ...] = ()  # the pytest marks above it: "cuda", "multi_gpu", "no_cuda"

    @property
    def syntax(self) -> str:
        return self.info.split(" ", 1)[0]

    @property
    def runs(self) -> bool:
        return self.info.strip() in RUN_SYNTAXES

    @property
    def includes(self) -> list[str]:
        return INCLUDE.findall(self.code)


def fences(text: str) -> list[Fence]:
    return [Fence(m["info"].strip(), m["code"], tuple(MARK.findall(m["marks"]))) for m in FENCE.finditer(text)]


def expand_includes(text: str, lang: str = LANGUAGES[0], repo: Path = REPO) -> str:
    """Run pymdownx.snippets' own preprocessor as configured in mkdocs.yml, with comments in lang."""
    options = next(dict(ext["pymdownx.snippets"]) for ext in settings(repo)["markdown_extensions"]
                   if isinstance(ext, dict) and "pymdownx.snippets" in ext)
    options["base_path"] = [str(repo / p) for p in options.get("base_path", ["."])]
    extension = SnippetExtension(**options)
    snippets = _SnippetsInLanguage(extension.getConfigs(), markdown.Markdown(extensions=[extension]))
    snippets.repo, snippets.lang = repo, lang
    return "\n".join(snippets.run(text.splitlines())) + "\n"


CJK = r"\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
# a break between two CJK characters: a browser shows it as a stray space, and such a next line cannot
# start a list, heading or table
SOFT_BREAK = re.compile(rf"(?<=[{CJK}])\n[ \t]*(?=[{CJK}])")


SNIPPET_FILE = re.compile(r"\bsnippets/[\w/]+\.py\b")  # a snippet file a shell block runs
# command-line snippets run as programs (tests, compatibility run) with the arguments a quick real run needs
PROGRAM_ARGS = {
    "snippets/mnist/bench.py": ["--pipelines", "resident", "--epochs", "1", "--out", "{tmp}"],  # a scratch folder
}


def behaviour_key(syntax: str, code: str) -> tuple[str, str]:
    """What decides how code behaves: for Python that parses, its syntax tree without docstrings (unless the code
    reads a __doc__) and without comments or layout; for anything else, the code without `#` comments. The
    languages' copies of a block differ only in comments and docstrings, so they share it."""
    if syntax == "python":
        try:
            tree = ast.parse(code)
        except SyntaxError:
            tree = None
        if tree is not None:
            if "__doc__" not in code:
                for node in ast.walk(tree):
                    if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                            and ast.get_docstring(node, clean=False) is not None:
                        node.body = node.body[1:] or [ast.Pass()]
            return syntax, ast.dump(tree)
        lines = code.splitlines()
        for row, column, _ in code_comments(code):
            lines[row - 1] = lines[row - 1][:column]
        return syntax, "\n".join(lines)
    return syntax, code


def block_digest(syntax: str, code: str, repo: Path = REPO) -> str:
    """A block's one identity (the tests' run-once key, the compatibility records' and the GPU records'
    staleness): its behaviour_key, and a shell block's snippet files' too."""
    parts = [behaviour_key(syntax, code)]
    if syntax != "python":
        parts += [behaviour_key("python", (repo / f).read_text(encoding="utf-8"))
                  for f in dict.fromkeys(SNIPPET_FILE.findall(code)) if (repo / f).is_file()]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


@dataclass
class PageBlock:
    """One block of a page as pytest-codeblocks reads it (a fence, its expected output folded in): what the page
    source holds (raw) and what runs (expanded: includes in, comments in the page's language)."""

    page: Path
    index: int  # its number among the page's blocks, as the tests name it ("block 7")
    raw: CodeBlock
    expanded: CodeBlock

    @property
    def includes(self) -> list[str]:
        return INCLUDE.findall(self.raw.code)

    @property
    def marks(self) -> list[str]:
        return [m.strip() for m in self.raw.marks]

    @property
    def label(self) -> str:
        return f"block {self.index} [{', '.join(self.includes) or self.raw.syntax or 'text'}]"

    @property
    def digest(self) -> str:
        return block_digest(self.expanded.syntax, self.expanded.code)


@functools.cache  # read once per run: collection, the snippet runs, the site tests and the hooks ask for the same
def page_blocks(page: Path) -> tuple[PageBlock, ...]:
    text = page.read_text(encoding="utf-8")
    raw = extract_from_buffer(io.StringIO(text))
    expanded = extract_from_buffer(io.StringIO(expand_includes(text, page.parent.name)))
    return tuple(PageBlock(page, i + 1, r, e) for i, (r, e) in enumerate(zip(raw, expanded, strict=True)))


def page_code_digest(page: Path, repo: Path = REPO) -> str:
    """A page's code as a GPU record keeps it (its runnable blocks' digests and marks): a later edit of the page's
    code shows as "an earlier version ran there"."""
    blocks = [[b.digest, b.marks] for b in page_blocks(page) if b.expanded.syntax in RUN_SYNTAXES]
    return hashlib.sha256(json.dumps(blocks).encode()).hexdigest()[:16]


def join_cjk_lines(text: str) -> str:
    """Drop the line breaks inside Chinese paragraphs; fenced code is left alone."""
    parts = re.split(r"(^[ \t]*```.*?^[ \t]*```[ \t]*$)", text, flags=re.M | re.S)
    return "".join(part if i % 2 else SOFT_BREAK.sub("", part) for i, part in enumerate(parts))


# the punctuation of Chinese text: no space on either side of it
CJK_PUNCTUATION = r"\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\u201c\u201d"
# what a folded YAML line break (or any run of spaces) leaves in Chinese text that a reader sees as a stray gap:
# a space at Chinese punctuation, or between two Chinese characters
CJK_GAP = re.compile(rf"\s+(?=[{CJK_PUNCTUATION}])|(?<=[{CJK_PUNCTUATION}])\s+|(?<=[{CJK}])\s+(?=[{CJK}])")


def flow(text: str, lang: str) -> str:
    """A data file's text (folded YAML, perhaps over several lines) as one paragraph: each run of white space one
    space, and in Chinese none at punctuation or between two Chinese characters (a space next to a Latin word
    stays: “在 GPU 上”)."""
    flowed = " ".join(str(text).split())
    return CJK_GAP.sub("", flowed) if lang == "zh" else flowed


# ---- code comments in the page's language ----------------------------------------------------------

COMMENTS = Path("docs/data/comments")  # <lang>/<snippet folder>.yml: English comment -> its text in lang
COMMENTS_SCHEMA = Path("docs/data/comments.schema.json")
# not prose: the snippets extension's section markers and tools' pragmas stay as they are
NOT_PROSE = ("--8<--", "noqa", "type:", "fmt:")


def comment_key(comment: str) -> str | None:
    """A `#` comment's key in the data files: its text after "# ", or None if it is not prose."""
    text = comment[1:].removeprefix(" ").rstrip()
    return None if not text or text.startswith(NOT_PROSE) else text


def code_comments(code: str) -> list[tuple[int, int, str]]:
    """(line, column, key) of each comment: tokenize finds real comments, never a `#` inside a string."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    comments = (t for t in tokens if t.type == tokenize.COMMENT)
    return [(t.start[0], t.start[1], key) for t in comments if (key := comment_key(t.string))]


OPENING_QUOTES = re.compile(r'^[rRuU]?("""|\'\'\'|"|\')')
CLOSING_QUOTES = re.compile(r'("""|\'\'\'|"|\')$')


def docstring_lines(code: str) -> list[tuple[int, str]]:
    """(line, key) of each line of text in a docstring (a module's, class's or function's): the line without its
    indentation and quotes. Code that does not parse on its own (a section of a file) has none."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines = [line.strip() for line in code.splitlines()[first.lineno - 1:first.end_lineno]]
                lines[0] = OPENING_QUOTES.sub("", lines[0])
                lines[-1] = CLOSING_QUOTES.sub("", lines[-1])
                found += [(first.lineno + i, key) for i, line in enumerate(lines) if (key := line.strip())]
    return sorted(found)


def translate_comments(lines: list[str], words: dict[str, str]) -> list[str]:
    """The lines with each comment, and each docstring line, that words knows replaced by its translation; code and
    other strings are untouched (a docstring without an entry stays as it is)."""
    out = list(lines)
    code = "\n".join(lines) + "\n"
    for row, col, key in code_comments(code):
        if key in words:
            out[row - 1] = out[row - 1][:col] + "# " + words[key]
    for row, key in docstring_lines(code):
        if key in words:
            out[row - 1] = out[row - 1].replace(key, words[key], 1)
    return out


# libyaml's loader where PyYAML has it (its wheels do): the same data as SafeLoader, about ten times faster
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str, name: str):
    """The YAML text of the data file name as Python data (safe tags only); bad YAML is one PluginError line."""
    try:
        return yaml.load(text, _YAML_LOADER)
    except yaml.YAMLError as error:
        raise PluginError(f"{name}: not valid YAML ({' '.join(str(error).split())})") from None


def data_file_name(path: Path, repo: Path = REPO) -> str:
    """How a build error names a data file: its path in the project, or its name where it lies elsewhere."""
    return path.resolve().relative_to(repo.resolve()).as_posix() if path.resolve().is_relative_to(repo.resolve()) \
        else path.name


def load_data(path: Path, schema: Path, repo: Path = REPO):
    """A YAML or JSON data file checked against its JSON Schema; one PluginError line names file and field."""
    name = data_file_name(path, repo)
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else parse_yaml(text, name)
    except ValueError as error:  # JSON's and UTF-8's errors
        kind = "JSON" if path.suffix == ".json" else "YAML"
        raise PluginError(f"{name}: not valid {kind} ({' '.join(str(error).split())})") from None
    validator = jsonschema.Draft202012Validator(json.loads(schema.read_text(encoding="utf-8")))
    error = best_match(validator.iter_errors(data))
    if error is not None:
        raise PluginError(f"{name}: field '{invalid_field(error)}': {error.message}")
    return data


def load_records(folder: Path, schema: Path, repo: Path = REPO) -> list:
    """Every *.json record in folder, each checked as load_data does."""
    return [load_data(path, schema, repo) for path in sorted(folder.glob("*.json"))]


def invalid_field(error: jsonschema.ValidationError) -> str:
    """The dotted path of the field a schema error is about, the missing or unexpected key included."""
    path = [str(p) for p in error.absolute_path]
    if error.validator == "required" and isinstance(error.instance, dict):
        path.append(next(k for k in error.validator_value if k not in error.instance))
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        path.append(sorted(set(error.instance) - set(error.schema.get("properties", {})))[0])
    return ".".join(path) or "(top level)"


def load_text(hook: str, repo: Path = REPO) -> dict[str, dict[str, str]]:
    """A hook's words in every language, from docs/data/text/<lang>/<hook>.yml; every language has the same keys."""
    text = {}
    for lang in LANGUAGES:
        name = f"docs/data/text/{lang}/{hook}.yml"
        text[lang] = parse_yaml((repo / name).read_text(encoding="utf-8"), name)
        if odd := sorted(set(text[lang]) ^ set(text[LANGUAGES[0]])):
            raise PluginError(f"{name}: field '{odd[0]}': not in every language's {hook}.yml")
    return text


class _SnippetsInLanguage(SnippetPreprocessor):
    """pymdownx.snippets, with each included snippet's comments taken from COMMENTS/<lang>/<its folder>.yml.

    Glue, because the code stays single-source (English comments in snippets/) while a Chinese page
    shows, copies and runs it with Chinese ones; process_snippet_lines is the extension's rewriting hook.
    """

    repo: Path
    lang: str

    def process_snippet_lines(self, lines, target):
        data = self.repo / COMMENTS / self.lang / f"{Path(target['snippet']).parent.name}.yml"
        if not data.is_file():
            return lines
        return translate_comments(lines, _comment_words(data, data.stat().st_mtime_ns, self.repo))


@functools.cache  # a page includes many snippets of one folder; keyed by mtime, so `mkdocs serve` sees edits
def _comment_words(path: Path, mtime_ns: int, repo: Path) -> dict[str, str]:
    return load_data(path, repo / COMMENTS_SCHEMA, repo)


TEMPLATES = Path("docs/overrides")  # the reader-visible layout of what hooks compute: Jinja templates


@functools.cache
def templates(repo: Path = REPO):
    """The Jinja environment of the hooks' templates (docs/overrides/<hook>/*.md: Markdown, so neither MkDocs nor
    the theme copies them into the site). StrictUndefined: a misspelt name stops the build instead of printing
    nothing."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(repo / TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,  # they write Markdown; values that reach HTML attributes are escaped where they do
    )
