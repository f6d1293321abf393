"""GPU outputs that differ from one machine to the next (device names, memory sizes, speeds).

A page cannot assert them verbatim, so it shows the real output of the project's GPU run in a fence
titled with that device and torch version (```` ```text title="NVIDIA H100 80GB HBM3 · torch 2.11.0" ````).
Here each such output is tied to its snippet: on any GPU the snippet must print lines of the same
form, whose numbers agree with what PyTorch reports or keep the order the page draws from them; on
the device named in the title, the stable ones must match exactly.
"""

from __future__ import annotations

import itertools
import re

import pytest
import torch

from codeblocks_plugin import page_blocks
from site_pages import DOCS, LANGUAGES, pages
from snippet_runs import run_snippet

TITLE = re.compile(r'^text title="(?P<device>[^"]+?) · torch (?P<torch>\d+\.\d+\.\d+)"$')
NUMBER = r"(\d+(?:\.\d+)?)"


def check_gpu_details(values: list[str], printed: str, shown: str, device: str) -> None:
    count, index, name, gib, capability = values
    props = torch.cuda.get_device_properties(int(index))
    assert int(count) == torch.cuda.device_count()
    assert int(index) == torch.cuda.current_device()
    assert name == torch.cuda.get_device_name(int(index))
    assert gib == f"{props.total_memory / 2**30:.1f}"
    assert capability == f"{props.major}.{props.minor}"
    if name == device and count == "1":
        assert printed == shown  # the device the page claims: the very same lines


def check_transfer_cost(values: list[str], *_) -> None:
    pageable, pinned, on_gpu = map(float, values)
    assert pageable < pinned < on_gpu  # the order the page's advice rests on


def check_cuda_events(values: list[str], *_) -> None:
    queued, done, by_events = map(float, values)
    assert queued < done / 2  # the call returns long before the GPU has finished
    assert by_events > 0


# snippet -> check of its printed output against the one the pages show
CHECKS = {
    "snippets/devices/gpu_details.py": check_gpu_details,
    "snippets/performance/transfer_cost.py": check_transfer_cost,
    "snippets/performance/cuda_events.py": check_cuda_events,
}


def measured_outputs() -> list[tuple[str, str, str, str]]:
    """(page, snippet, title, shown text) of every titled output fence on the pages."""
    found = []
    for lang in LANGUAGES:
        for page in pages(lang):
            blocks = page_blocks(page.path)
            for before, block in itertools.pairwise(blocks):
                if block.raw.syntax.startswith("text "):
                    snippet = before.includes[0].split(":", 1)[0] if before.includes else ""
                    assert "pytest.mark.cuda" in before.marks, f"{page.path}: {block.label} does not follow a GPU block"
                    found.append((page.path.relative_to(DOCS).as_posix(), snippet, block.raw.syntax, block.raw.code))
    return found


def shape_of(shown: str, device: str) -> re.Pattern[str]:
    """The shown output as a pattern: the device name and every number become groups, spaces stretch."""
    pattern = []
    for i, piece in enumerate(shown.strip().split(device)):
        if i:
            pattern.append("(.+)")
        for j, literal in enumerate(re.split(r"\d+(?:\.\d+)?", piece)):
            if j:
                pattern.append(NUMBER)
            pattern.append(r" +".join(re.escape(word) for word in re.split(r" +", literal)))
    return re.compile("".join(pattern))


def test_every_measured_output_names_its_device_and_has_a_check():
    found = measured_outputs()
    assert {snippet for _, snippet, _, _ in found} == set(CHECKS)
    for page, snippet, title, _ in found:
        assert TITLE.match(title), f"{page}: {title!r} does not name a device and a torch version"
        assert snippet in CHECKS, f"{page}: no check for the output of {snippet}"


def test_both_languages_show_the_same_measured_outputs():
    by_lang = {lang: sorted((p.split("/", 1)[1], s, t, c) for p, s, t, c in measured_outputs()
                            if p.startswith(f"{lang}/")) for lang in LANGUAGES}
    assert by_lang["en"] == by_lang["zh"]


def test_the_shape_of_a_shown_output_matches_it_and_rejects_other_text():
    for _, snippet, title, shown in measured_outputs():
        device = TITLE.match(title)["device"]
        assert shape_of(shown, device).fullmatch(shown.strip()), snippet
        assert not shape_of(shown, device).fullmatch("x" + shown.strip()), snippet
        wider = re.sub(r"(\d+\.\d)", r"1000\1", shown.strip())  # a faster machine: wider numbers, less padding
        assert shape_of(shown, device).fullmatch(wider), snippet


@pytest.mark.cuda
@pytest.mark.parametrize("snippet", sorted(CHECKS))
def test_the_snippet_prints_what_the_page_shows(snippet):
    _, _, title, shown = next(m for m in measured_outputs() if m[1] == snippet)
    device = TITLE.match(title)["device"]
    result = run_snippet(snippet).result(timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    printed = result.stdout.strip()
    match = shape_of(shown, device).fullmatch(printed)
    assert match, f"{snippet} printed\n{printed}\nwhich is not of the form the page shows:\n{shown}"
    CHECKS[snippet](list(match.groups()), printed, shown.strip(), device)
