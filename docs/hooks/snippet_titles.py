"""Show each code block's snippet file above it, so a reader can go from the page to the file.

The title is added at build time only: on the page source the fence stays a bare `python`, which is
what pytest-codeblocks runs.
"""

from __future__ import annotations

import re

_INCLUDE_FENCE = re.compile(r'^([ \t]*)```python\n([ \t]*--8<--\s+"([^":]+)(?::[^"]*)?"\s*\n)', re.M)


def on_page_markdown(markdown: str, page, config, files) -> str:
    return _INCLUDE_FENCE.sub(lambda m: f'{m.group(1)}```python title="{m.group(3)}"\n{m.group(2)}', markdown)
