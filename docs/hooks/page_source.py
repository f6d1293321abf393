"""Reading a page as its code runs: includes expanded, admonitions opened. Shared by hooks and tests."""

from __future__ import annotations

import io
import re
from pathlib import Path

import markdown
import yaml
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


def expand_includes(text: str, repo: Path = REPO) -> str:
    """Run pymdownx.snippets' own preprocessor, configured as in mkdocs.yml."""
    options = next(
        dict(ext["pymdownx.snippets"])
        for ext in mkdocs_config(repo)["markdown_extensions"]
        if isinstance(ext, dict) and "pymdownx.snippets" in ext
    )
    options["base_path"] = [str(repo / p) for p in options.get("base_path", ["."])]
    md = markdown.Markdown(extensions=["pymdownx.snippets"], extension_configs={"pymdownx.snippets": options})
    return "\n".join(md.preprocessors["snippet"].run(text.splitlines())) + "\n"


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
