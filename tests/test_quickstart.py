"""The quick start's promises: its table covers the device APIs; the new pages share section ids across languages.

That every link lands on a real section is checked by the strict build (`validation` in mkdocs.yml)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from markdown.extensions.toc import slugify

from site_pages import DOCS, LANGUAGES

LINK = re.compile(r"\]\(([\w./-]*\.md)?(?:#([\w-]+))?\)")  # a link to a page or a section
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w-]+)\s*\})?\s*$")


def section_ids(page: Path, from_level: int = 1) -> list[str]:
    """The ids the site gives the page's headings (from heading level `from_level` on): an explicit { #id },
    or the toc extension's slug."""
    ids, in_fence = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if not in_fence and (m := HEADING.match(line)) and len(m.group(1)) >= from_level:
            ids.append(m.group(3) or slugify(m.group(2), "-"))
    return ids


@pytest.mark.parametrize("page", ["quickstart.md", "save-load.md", "troubleshooting.md"])
def test_new_pages_use_the_same_section_ids_in_both_languages(page):
    # the page titles differ by language; the sections below them must not, so links work in both
    assert section_ids(DOCS / "zh" / page, 2) == section_ids(DOCS / "en" / page, 2)


# The APIs the "which API when" table must cover, each by a text its row contains.
TABLE_APIS = [
    "torch.device(",
    "torch.accelerator.is_available()",
    ".current_accelerator()",
    ".device_count()",
    "x.to(device)",
    ".cuda()",
    ".cpu()",
    "torch.set_default_device",
    "with torch.device(",
    "CUDA_VISIBLE_DEVICES",
    "torch.cuda.set_device",
]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_which_api_table_covers_each_api_and_links_every_row(lang):
    text = (DOCS / lang / "quickstart.md").read_text(encoding="utf-8")
    table = text.split("{ #which-api-when }", 1)[1]
    rows = [ln for ln in table.splitlines() if ln.startswith("| `")]
    assert rows, "no table after the which-api-when heading"
    assert not [api for api in TABLE_APIS if not any(api in row for row in rows)]
    assert not [row for row in rows if not LINK.search(row)]


def test_the_apis_the_table_names_exist_in_the_installed_torch():
    import torch

    named = ["torch.accelerator.is_available", "torch.accelerator.current_accelerator",
             "torch.accelerator.device_count", "torch.accelerator.set_device_index",
             "torch.set_default_device", "torch.cuda.set_device", "torch.cuda.is_available"]
    missing = []
    for name in named:
        obj = torch
        for part in name.split(".")[1:]:
            obj = getattr(obj, part, None)
        if not callable(obj):
            missing.append(name)
    assert not missing


def test_a_dataloader_yields_batches_where_its_dataset_tensors_are():
    # quick start and device-agnostic: CPU batches come from a dataset of CPU tensors, not from the DataLoader
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    for device in ("cpu", "meta"):  # meta stands in for a GPU
        data = TensorDataset(torch.zeros(8, 3, device=device), torch.zeros(8, device=device))
        inputs, labels = next(iter(DataLoader(data, batch_size=4)))
        assert inputs.device.type == labels.device.type == device
        assert inputs.shape == (4, 3)


def test_to_returns_a_new_tensor_only_when_the_tensor_moves():
    # move-model-and-batch: a tensor not yet on the device comes back new, the original unmoved; one already
    # there comes back as itself
    x = torch.ones(2)
    moved = x.to("meta")  # meta stands in for the GPU
    assert moved is not x and moved.device.type == "meta" and x.device.type == "cpu"
    assert x.to(x.device) is x
