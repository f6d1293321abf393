"""Where the docs live and how their code blocks are read: shared by the plugin and the tests."""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass
from pathlib import Path

from pytest_codeblocks import CodeBlock, extract_from_buffer

import page_source
from page_source import LANGUAGES

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
SNIPPETS = REPO / "snippets"
INCLUDE = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')


@functools.cache
def mkdocs_config() -> dict:
    return page_source.mkdocs_config(REPO)


def expand_includes(text: str, lang: str = LANGUAGES[0]) -> str:
    """pytest-codeblocks reads raw Markdown and does not follow `--8<--` includes: expand them first,
    with the comments a page in lang shows."""
    return page_source.expand_includes(text, REPO, lang)


def pages(lang: str) -> list[Path]:
    return sorted((DOCS / lang).rglob("*.md"))


@dataclass
class PageBlock:
    """One fence of a page: what it includes (raw) and what it runs (expanded)."""

    page: Path
    index: int
    raw: CodeBlock
    expanded: CodeBlock

    @property
    def includes(self) -> list[str]:
        return [m.group(1) for line in self.raw.code.splitlines() if (m := INCLUDE.match(line))]

    @property
    def marks(self) -> list[str]:
        return [m.strip() for m in self.raw.marks]

    @property
    def label(self) -> str:
        what = ", ".join(self.includes) or (self.raw.syntax or "text")
        return f"block {self.index} [{what}]"


def page_blocks(page: Path) -> list[PageBlock]:
    text = page.read_text(encoding="utf-8")
    raw = extract_from_buffer(io.StringIO(text))
    expanded = extract_from_buffer(io.StringIO(expand_includes(text, page.parent.name)))
    if len(raw) != len(expanded):
        raise RuntimeError(f"{page}: {len(raw)} fences before expanding includes, {len(expanded)} after")
    return [PageBlock(page, i + 1, r, e) for i, (r, e) in enumerate(zip(raw, expanded, strict=True))]


def gpu_marks(marks: list[str]) -> set[str]:
    return {m.removeprefix("pytest.mark.") for m in marks} & {"cuda", "multi_gpu"}


@functools.cache
def snippets_needing_gpu() -> dict[str, set[str]]:
    """Snippet path -> GPU marks of the page blocks that include it (the page is the source of truth)."""
    needs: dict[str, set[str]] = {}
    for lang in LANGUAGES:
        for page in pages(lang):
            for block in page_blocks(page):
                for inc in block.includes:
                    path = inc.split(":", 1)[0]
                    needs.setdefault(path, set()).update(gpu_marks(block.marks))
    return needs
