"""Every snippet module runs on its own, as a reader who copied it would run it: here, unless a page's bash
block already runs it as a program in each language."""

from __future__ import annotations

import re
import subprocess

import pytest

from codeblocks_plugin import (
    behaviour_key,
    block_digest,
    page_blocks,
    programs,
    skip_reason,
    snippets_run_by_pages,
)
from site_pages import REPO, RUN_SYNTAXES, SNIPPETS, pages
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


# ---- each piece of code runs once: the page blocks that show a whole file read that file's run above -------------


def whole_file_blocks():
    """(page, block, file) for every Python fence that shows one whole snippet file, in every language."""
    for page in pages():
        for block in page_blocks(page.path):
            if block.expanded.syntax == "python" and len(block.includes) == 1 and ":" not in block.includes[0] \
                    and block.raw.code.strip() == f'--8<-- "{block.includes[0]}"':
                yield page, block, block.includes[0]


@pytest.mark.every_page
def test_every_copy_of_a_whole_file_reads_that_files_one_run():
    """Structural, for what is not run again: each language's copy of a fence that shows a whole snippet file
    differs from the file in comments and docstrings only, so the file's run as a program (above) is its run too;
    a file that a page's bash block runs is run there (with its arguments), and its fence runs as before."""
    read, own = 0, []
    for page, block, file in whole_file_blocks():
        key = behaviour_key("python", block.expanded.code)
        assert key == behaviour_key("python", (REPO / file).read_text(encoding="utf-8")), (
            f"{page.lang}/{page.name} {block.label}: its code differs from {file} in more than comments and docstrings")
        if file in RUN_BY_PAGES:
            own.append(file)
        else:
            assert programs()[block_digest("python", block.expanded.code)] == file
            read += 1
    assert read >= 200, f"only {read} fences read a program's run"  # 228 when this was written, both languages
    assert len(own) <= 12, own  # 10: five files, two languages


def test_the_behaviour_key_ignores_comments_and_docstrings_only():
    code = 'def f():\n    """Return one."""\n    return 1  # one\n\n\nprint(f())\n'
    translated = 'def f():\n    """返回 1。"""\n    return 1  # 一\nprint(f())\n'
    assert behaviour_key("python", code) == behaviour_key("python", translated)
    assert behaviour_key("python", code) != behaviour_key("python", code.replace("return 1", "return 2"))
    reads_its_doc = code + "print(f.__doc__)\n"
    assert behaviour_key("python", reads_its_doc) != behaviour_key(
        "python", reads_its_doc.replace("Return one.", "返回 1。"))
    section = "    return 1  # a section of a file, which does not parse alone\n"
    assert behaviour_key("python", section) == ("python", "    return 1  ")


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


def gpu_page_blocks() -> dict[str, tuple[str, str, str]]:
    """block digest -> (syntax, code, where it is shown), for every CUDA or multi-GPU block of the built site (the
    languages' copies of a block are one), less those whose code a page also shows unmarked (the same torchrun
    command for CPUs and for GPUs): that block's own test runs it on a machine without a GPU and needs status 0."""
    blocks: dict[str, tuple[str, str, str]] = {}
    run_without_gpu = set()
    for page in pages():
        for block in page_blocks(page.path):
            marks = {m.removeprefix("pytest.mark.") for m in block.marks}
            key = block_digest(block.expanded.syntax, block.expanded.code)
            if marks & {"cuda", "multi_gpu"}:
                where = f"{page.lang}/{page.name} {block.label}"
                blocks.setdefault(key, (block.expanded.syntax, block.expanded.code, where))
            elif skip_reason(marks, gpus=0) is None and block.expanded.syntax in RUN_SYNTAXES:
                run_without_gpu.add(key)
    return {key: block for key, block in blocks.items() if key not in run_without_gpu}


GPU_BLOCKS = gpu_page_blocks()


@pytest.mark.no_cuda
@pytest.mark.parametrize("key", list(GPU_BLOCKS), ids=[where for _, _, where in GPU_BLOCKS.values()])
def test_a_copied_gpu_block_on_a_machine_without_one_runs_or_says_it_needs_a_gpu(key):
    syntax, code, _ = GPU_BLOCKS[key]
    if (snippet := programs().get(key)) is not None:  # a whole snippet file: its one run as a program (above)
        run = run_snippet(snippet).result(timeout=600)
        returncode, stderr = run.returncode, run.stderr
    elif syntax == "python":
        run = run_code(code)
        returncode, stderr = run.returncode, run.stderr
    else:
        done = subprocess.run(code, shell=True, executable="/bin/bash", cwd=REPO, capture_output=True, text=True,
                              timeout=600)
        returncode, stderr = done.returncode, done.stderr
    assert returncode == 0 or says_it_needs_a_gpu(returncode, stderr), f"status {returncode}\n{stderr[-2000:]}"
