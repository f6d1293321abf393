"""Every snippet module runs on its own, as a reader who copied it would run it: here, unless a page's bash
block already runs it as a program in each language."""

from __future__ import annotations

import re
import subprocess

import pytest

from codeblocks_plugin import page_blocks, run_key
from site_pages import REPO, SNIPPETS, pages
from snippet_runs import run_code, run_snippet


def snippets_needing_gpu() -> dict[str, set[str]]:
    """Snippet path -> GPU marks of the page blocks that include it (the page is the source of truth)."""
    needs: dict[str, set[str]] = {}
    for page in pages():
        for block in page_blocks(page.path):
            marks = {m.removeprefix("pytest.mark.") for m in block.marks} & {"cuda", "multi_gpu"}
            for include in block.includes:
                needs.setdefault(include.split(":", 1)[0], set()).update(marks)
    return needs


def snippets_run_by_pages() -> set[str]:
    """Snippet files that a page's bash block runs as a program (`python snippets/x.py ...`), in each language."""
    return {path for page in pages() for block in page_blocks(page.path) if block.raw.syntax in {"bash", "sh"}
            for path in re.findall(r"\bsnippets/[\w/]+\.py\b", block.raw.code)}


RUN_BY_PAGES = snippets_run_by_pages()
SNIPPET_FILES = [rel for p in sorted(SNIPPETS.rglob("*.py"))
                 if (rel := p.relative_to(REPO).as_posix()) not in RUN_BY_PAGES]


def _params():
    needs = snippets_needing_gpu()
    for snippet in SNIPPET_FILES:
        yield pytest.param(snippet, marks=[getattr(pytest.mark, m) for m in sorted(needs.get(snippet, ()))],
                           id=snippet)


@pytest.fixture(scope="module")
def _started(request):
    """Start every runnable snippet at once, two at a time in the background; each test waits for its own."""
    runnable = [item.callspec.params["snippet"] for item in request.session.items
                if getattr(item, "module", None) is request.module and not item.get_closest_marker("skip")
                and getattr(item, "originalname", "") == "test_snippet_runs_as_a_script"]
    for snippet in runnable:
        run_snippet(snippet)


@pytest.mark.parametrize("snippet", list(_params()))
def test_snippet_runs_as_a_script(_started, snippet):
    run = run_snippet(snippet).result(timeout=600)
    assert run.returncode == 0, f"{run.command}\n{run.stdout[-2000:]}\n{run.stderr[-4000:]}"


# What a GPU-only program may end with on a machine without a GPU: one line that says a GPU is missing (torch's
# own words, or the snippet's), as its last line and with a non-zero status; never an unrelated error.
NEEDS_A_GPU = re.compile(
    r"^(RuntimeError: Found no NVIDIA driver on your system\. Please check that you have an NVIDIA GPU"
    r"|AssertionError: Torch not compiled with CUDA enabled"
    r"|RuntimeError: No CUDA GPUs are available"
    r"|This example needs a GPU or another accelerator \(CUDA, MPS, XPU, \.\.\.\); none is available\."
    r"|(/bin/sh: 1: |(/bin/)?bash: (line 1: )?)nvidia-smi: (command )?not found)"
)


def says_it_needs_a_gpu(returncode: int, stderr: str) -> bool:
    lines = stderr.strip().splitlines()
    return returncode != 0 and bool(lines) and bool(NEEDS_A_GPU.match(lines[-1]))


def test_the_needs_a_gpu_check_refuses_an_unrelated_error():
    assert says_it_needs_a_gpu(1, "Traceback ...\nRuntimeError: No CUDA GPUs are available")
    assert not says_it_needs_a_gpu(1, "Traceback ...\nAttributeError: 'NoneType' object has no attribute 'type'")
    assert not says_it_needs_a_gpu(0, "RuntimeError: No CUDA GPUs are available")  # and it must not pass silently


GPU_SNIPPETS = sorted(s for s, marks in snippets_needing_gpu().items() if marks)


@pytest.mark.no_cuda
@pytest.mark.parametrize("snippet", GPU_SNIPPETS)
def test_a_gpu_snippet_on_a_machine_without_one_runs_or_says_it_needs_a_gpu(snippet):
    run = run_snippet(snippet).result(timeout=600)
    assert run.returncode == 0 or says_it_needs_a_gpu(run.returncode, run.stderr), (
        f"{run.command}: status {run.returncode}\n{run.stderr[-2000:]}")


def gpu_page_blocks() -> dict[tuple[str, str], str]:
    """(syntax, code without comments) -> where it is shown, for every CUDA or multi-GPU block of the built site."""
    blocks: dict[tuple[str, str], str] = {}
    for page in pages():
        for block in page_blocks(page.path):
            if {m.removeprefix("pytest.mark.") for m in block.marks} & {"cuda", "multi_gpu"}:
                blocks.setdefault(run_key(block.expanded), f"{page.lang}/{page.name} {block.label}")
    return blocks


GPU_BLOCKS = gpu_page_blocks()


@pytest.mark.no_cuda
@pytest.mark.parametrize("key", list(GPU_BLOCKS), ids=list(GPU_BLOCKS.values()))
def test_a_copied_gpu_block_on_a_machine_without_one_runs_or_says_it_needs_a_gpu(key):
    syntax, code = key
    if syntax == "python":
        run = run_code(code)
        returncode, stderr = run.returncode, run.stderr
    else:
        done = subprocess.run(code, shell=True, executable="/bin/bash", cwd=REPO, capture_output=True, text=True,
                              timeout=600)
        returncode, stderr = done.returncode, done.stderr
    assert returncode == 0 or says_it_needs_a_gpu(returncode, stderr), f"status {returncode}\n{stderr[-2000:]}"
