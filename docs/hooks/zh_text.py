"""Chinese pages: join hard-wrapped lines, which would otherwise render as spaces between characters."""

from __future__ import annotations

from page_source import join_cjk_lines


def on_page_markdown(markdown: str, page, config, files) -> str:
    if page.file.src_uri.startswith("zh/"):
        return join_cjk_lines(markdown)
    return markdown
