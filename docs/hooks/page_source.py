"""Reading a page as its code runs: includes expanded, admonitions opened. Shared by hooks and tests."""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

import jsonschema
import markdown
import yaml
from jsonschema.exceptions import best_match
from mkdocs.exceptions import PluginError
from pymdownx.snippets import SnippetExtension, SnippetPreprocessor
from pytest_codeblocks import CodeBlock, extract_from_buffer

REPO = Path(__file__).resolve().parents[2]
LANGUAGES = ("en", "zh")  # the first is the default, served at the site root
RUN_SYNTAXES = {"python", "sh", "bash"}  # the fences pytest-codeblocks executes
ADMONITION = re.compile(r'^(!!!|\?\?\?\+?)\s+\w[\w-]*(?:\s+"([^"]*)")?\s*$')


class _MkDocsLoader(yaml.SafeLoader):
    """mkdocs.yml may carry !!python/name tags; they do not matter for reading settings."""


_MkDocsLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda *_: None)
_MkDocsLoader.add_multi_constructor("!", lambda *_: None)


def mkdocs_config(repo: Path = REPO) -> dict:
    return yaml.load((repo / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_MkDocsLoader)


def expand_includes(text: str, repo: Path = REPO, lang: str = LANGUAGES[0]) -> str:
    """Run pymdownx.snippets' own preprocessor, configured as in mkdocs.yml, comments in lang."""
    options = next(
        dict(ext["pymdownx.snippets"])
        for ext in mkdocs_config(repo)["markdown_extensions"]
        if isinstance(ext, dict) and "pymdownx.snippets" in ext
    )
    options["base_path"] = [str(repo / p) for p in options.get("base_path", ["."])]
    extension = SnippetExtension(**options)
    snippets = _SnippetsInLanguage(extension.getConfigs(), markdown.Markdown(extensions=[extension]))
    snippets.repo, snippets.lang = repo, lang
    return "\n".join(snippets.run(text.splitlines())) + "\n"


# ---- comments in the page's language ---------------------------------------------------------------

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


def translate_comments(lines: list[str], words: dict[str, str]) -> list[str]:
    """The lines with each comment that words knows replaced by its translation; code is untouched."""
    out = list(lines)
    for row, col, key in code_comments("\n".join(lines) + "\n"):
        if key in words:
            out[row - 1] = out[row - 1][:col] + "# " + words[key]
    return out


def load_comment_words(path: Path, repo: Path = REPO) -> dict[str, str]:
    """One data file, checked against the schema; PluginError names the file and the bad key."""
    from benchmarks import _field as invalid_field  # the benchmark records' way of naming the bad field

    name = path.resolve().relative_to(repo.resolve()).as_posix()
    try:
        words = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise PluginError(f"comment translations {name}: not valid YAML ({error})") from None
    schema = json.loads((repo / COMMENTS_SCHEMA).read_text(encoding="utf-8"))
    error = best_match(jsonschema.Draft202012Validator(schema).iter_errors(words))
    if error is not None:
        raise PluginError(f"comment translations {name}: key '{invalid_field(error)}': {error.message}")
    return words


class _SnippetsInLanguage(SnippetPreprocessor):
    """pymdownx.snippets, with each included snippet's comments taken from COMMENTS/<lang>/<its folder>.yml.

    Glue, because the code stays single-source (English comments in snippets/) while a Chinese page
    shows, copies and runs it with Chinese ones; process_snippet_lines is the extension's rewriting hook.
    """

    repo: Path
    lang: str

    def process_snippet_lines(self, lines, target):
        data = self.repo / COMMENTS / self.lang / f"{Path(target['snippet']).parent.name}.yml"
        return translate_comments(lines, load_comment_words(data, self.repo)) if data.is_file() else lines


def open_admonitions(text: str) -> str:
    """`!!! kind "Title"` + indented body -> a bold title and the body at top level (for notebooks)."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        m = ADMONITION.match(line)
        if m:
            inside = True
            out.append(f"> **{m.group(2)}**" if m.group(2) else "")
            continue
        if inside and line.strip() and not line.startswith("    "):
            inside = False
        out.append(line[4:] if inside and line.startswith("    ") else line)
    return "\n".join(out) + "\n"


def code_blocks(text: str) -> list[CodeBlock]:
    return extract_from_buffer(io.StringIO(text))


_CJK = r"\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_SOFT_BREAK = re.compile(rf"(?<=[{_CJK}])\n[ \t]*(?=[{_CJK}])")


def join_cjk_lines(text: str) -> str:
    """Drop the line breaks inside Chinese paragraphs, which browsers would show as stray spaces.

    Only a break between two CJK characters is removed (such a next line cannot start a list,
    heading or table); fenced code is left alone.
    """
    parts = re.split(r"(^[ \t]*```.*?^[ \t]*```[ \t]*$)", text, flags=re.M | re.S)
    return "".join(part if i % 2 else _SOFT_BREAK.sub("", part) for i, part in enumerate(parts))
