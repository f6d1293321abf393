"""What the pages quote of PyTorch's own words (tests/data/citations.yml): each row's section exists in both
languages, and the installed torch says every quoted phrase where the row says, so a torch upgrade that changes
the words fails the one row that quotes them."""

from __future__ import annotations

import inspect
import mmap
import pkgutil
import sys
from pathlib import Path

import pytest
import torch

from site_pages import DOCS, LANGUAGES, REPO, load_data

DATA = REPO / "tests" / "data"
CITATIONS = load_data(DATA / "citations.yml", DATA / "citations.schema.json")
TORCH_DIR = Path(torch.__file__).parent


def flat(text: str) -> str:
    return " ".join(text.split())


def cited(row: dict) -> tuple[str, str | mmap.mmap]:
    """(where, what it says): a docstring or source with its whitespace runs as one space, a file's text likewise,
    a library's bytes as they are (mapped: libtorch_cuda.so is half a gigabyte)."""
    if "doc" in row:
        return f"{row['doc']}.__doc__", flat(pkgutil.resolve_name(row["doc"]).__doc__ or "")
    if "source" in row:
        return f"the source of {row['source']}", flat(inspect.getsource(pkgutil.resolve_name(row["source"])))
    if "file" in row:
        return f"torch/{row['file']}", flat((TORCH_DIR / row["file"]).read_text(encoding="utf-8"))
    library = TORCH_DIR / row["library"]
    if not sys.platform.startswith("linux"):
        pytest.skip("reads PyTorch's Linux libraries")
    if "cuda" in library.name and torch.version.cuda is None:
        pytest.skip(f"a CPU-only build of PyTorch has no {library.name}")
    with library.open("rb") as file:
        return f"torch/{row['library']}", mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)


@pytest.mark.parametrize("row", CITATIONS, ids=lambda row: f"{row['page']}: {row['claim']}")
def test_torch_says_what_the_page_quotes(row):
    page, _, anchor = row["page"].partition("#")
    for lang in LANGUAGES:
        text = (DOCS / lang / page).read_text(encoding="utf-8")
        assert not anchor or f"{{ #{anchor} }}" in text, f"docs/{lang}/{page} has no section {{ #{anchor} }}"
    where, says = cited(row)
    if isinstance(says, mmap.mmap):
        with says:
            missing = [quote for quote in row["says"] if says.find(quote.encode()) == -1]
    else:
        missing = [quote for quote in row["says"] if flat(quote) not in says]
    assert missing == [], f"{where} no longer says these words"
