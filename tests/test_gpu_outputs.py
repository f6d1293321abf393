"""GPU outputs that differ from one machine to the next (device names, memory sizes, speeds).

A page cannot assert them verbatim, so it shows the real output of the project's GPU run in a fence
titled with that device and torch version (```` ```text title="NVIDIA H100 80GB HBM3 · torch 2.11.0" ````).
Here each such output is tied to its snippet: on any GPU the snippet must print lines of the same
form, whose numbers agree with what PyTorch reports or keep the order the page draws from them; on
the device named in the title, the stable ones must match exactly.
"""

from __future__ import annotations

import itertools
import json
import re

import jsonschema
import pytest
import torch

from codeblocks_plugin import page_blocks
from site_pages import DOCS, LANGUAGES, REPO, pages
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


@pytest.mark.every_page
def test_every_measured_output_names_its_device_and_has_a_check():
    found = measured_outputs()
    assert {snippet for _, snippet, _, _ in found} == set(CHECKS)
    for page, snippet, title, _ in found:
        assert TITLE.match(title), f"{page}: {title!r} does not name a device and a torch version"
        assert snippet in CHECKS, f"{page}: no check for the output of {snippet}"


@pytest.mark.every_page
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


# ---- the shown outputs are recorded outputs ----------------------------------------------------------------

GPU_OUTPUTS = DOCS / "data" / "gpu-outputs"
GPU_OUTPUT_RECORDS = sorted(GPU_OUTPUTS.glob("*.json"))
GPU_OUTPUTS_SCHEMA = json.loads((DOCS / "data" / "gpu-outputs.schema.json").read_text(encoding="utf-8"))
SHARED_GPU_RUNS = REPO.parent / "shared" / "gpu-runs"


def gpu_output_record(device: str, torch_version: str) -> dict:
    """The committed record of the run that printed the outputs a fence titled with this device and torch shows."""
    found = [r for f in GPU_OUTPUT_RECORDS if (r := json.loads(f.read_text(encoding="utf-8")))["device_name"] == device
             and r["torch_version"].split("+")[0] == torch_version]
    assert len(found) == 1, f"{len(found)} GPU output records for {device} with torch {torch_version}"
    return found[0]


@pytest.mark.parametrize("path", GPU_OUTPUT_RECORDS, ids=lambda p: p.name)
def test_a_gpu_output_record_is_schema_valid_and_agrees_with_its_run(path):
    record = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(record, GPU_OUTPUTS_SCHEMA)
    run = json.loads((DOCS / "data" / "verification" / record["verification_record"]).read_text(encoding="utf-8"))
    assert (run["device_name"], run["torch_version"], run["commit"], run["date"][:10]) == (
        record["device_name"], record["torch_version"], record["commit"], record["date"])
    assert path.name == record["verification_record"]  # one name for the run's two records


@pytest.mark.every_page
def test_every_shown_gpu_output_is_the_recorded_output():
    for page, snippet, title, shown in measured_outputs():
        found = TITLE.match(title)
        record = gpu_output_record(found["device"], found["torch"])
        recorded = record["outputs"][snippet]
        assert shown.rstrip("\n") == recorded.rstrip("\n"), f"{page}: {snippet} differs from its record"


@pytest.mark.skipif(not SHARED_GPU_RUNS.is_dir(), reason="the GPU runs' raw files are in ../shared/gpu-runs")
def test_a_gpu_output_record_holds_what_the_run_printed():
    for path in GPU_OUTPUT_RECORDS:
        record = json.loads(path.read_text(encoding="utf-8"))
        # the run's folder, as the record's source names it (shared/gpu-runs/<run>/snippet-outputs/...)
        folder = SHARED_GPU_RUNS / re.match(r"shared/gpu-runs/([^/]+)/snippet-outputs/", record["source"])[1] \
            / "snippet-outputs"
        for snippet, text in record["outputs"].items():
            assert (folder / f"{snippet.replace('/', '_')}.out").read_text(encoding="utf-8") == text, snippet


def shown_values(snippet: str) -> list[str]:
    _, _, title, shown = next(m for m in measured_outputs() if m[1] == snippet)
    return list(shape_of(shown, TITLE.match(title)["device"]).fullmatch(shown.strip()).groups())


def test_the_shown_numbers_keep_the_order_the_page_draws_from_them():
    check_transfer_cost(shown_values("snippets/performance/transfer_cost.py"))
    check_cuda_events(shown_values("snippets/performance/cuda_events.py"))


# every ratio a page's prose draws from a shown output: (snippet, the ratio from its numbers, the words per language
# with {n} for the rounded ratio; "almost" is said only of a ratio just under n)
PROSE_RATIOS = [
    ("snippets/performance/transfer_cost.py", lambda v: float(v[1]) / float(v[0]),
     {"en": "almost {n} times as fast", "zh": "速度将近是从可分页内存复制的 {n} 倍"}),
    ("snippets/performance/transfer_cost.py", lambda v: float(v[2]) / float(v[1]),
     {"en": "{n} times faster", "zh": "速度又是锁页内存复制的 {n} 倍"}),
    # “快 N 倍” reads as N times or N + 1 times in Chinese: the page gives the ratio itself
    ("snippets/performance/cuda_events.py", lambda v: float(v[1]) / float(v[0]),
     {"en": "about {n} times faster", "zh": "实际用时的约 1/{n}"}),
]


@pytest.mark.parametrize(("snippet", "ratio", "words"), PROSE_RATIOS, ids=lambda x: x if isinstance(x, str) else "")
def test_a_ratio_in_the_prose_is_computed_from_the_recorded_numbers(snippet, ratio, words):
    value = ratio(shown_values(snippet))
    n = round(value)
    for lang in LANGUAGES:
        page = next(p for p in pages(lang) if f'--8<-- "{snippet}' in p.text())  # the page that shows the snippet
        phrase = words[lang].format(n=n)
        assert phrase in page.text(), f"{lang}/{page.name}: {value:.2f} rounds to {n}; expected {phrase!r}"
        if "almost" in words[lang] or "将近" in words[lang]:
            assert n - 1 < value < n, f"'almost {n}' for {value:.2f}"


@pytest.mark.parametrize("page", [p.name for p in pages(LANGUAGES[0])])
def test_both_languages_show_the_same_output_for_every_block(page):
    # A CPU run compares each language's shown output of a CUDA block with nothing: the other language's copy
    # is the check (outputs are program output, never translated).
    def outputs(lang):
        return [(b.label, b.expanded.expected_output) for b in page_blocks(DOCS / lang / page)]

    assert outputs(LANGUAGES[1]) == outputs(LANGUAGES[0])
