"""pytest plugin: run every page's code blocks with pytest-codeblocks, after expanding includes.

Glue because pytest-codeblocks reads raw Markdown while the pages hold only `--8<--` includes.
Also turns the GPU markers into skips with a reason and counts them at the end of the run.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from pytest_codeblocks.plugin import TestBlock

from docs_pages import DOCS, LANGUAGES, REPO, page_blocks
from mnist_data import ensure_local_mnist
from page_source import RUN_SYNTAXES


def cuda_device_count() -> int:
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


SKIP_REASONS = {
    "cuda": (lambda n: n < 1, "needs a CUDA GPU"),
    "multi_gpu": (lambda n: n < 2, "needs two or more CUDA GPUs"),
    "no_cuda": (lambda n: n >= 1, "shows the output of a machine without a CUDA GPU"),
}


def pytest_configure(config):
    # bash blocks on the pages say `python`/`torchrun`: make those the interpreter running the tests
    os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    for name, (_, reason) in SKIP_REASONS.items():
        config.addinivalue_line("markers", f"{name}: {reason}")


def pytest_sessionstart(session):
    ensure_local_mnist()  # pages train on real MNIST without downloading it


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".md" and file_path.parent.parent == DOCS and file_path.parent.name in LANGUAGES:
        return ExpandedPage.from_parent(parent, path=file_path)
    return None


class PageBlockItem(TestBlock):
    """pytest-codeblocks' item, with a failure report that is always text and shows a command's output.

    Its own repr_failure returns the exception's first argument, which for a failed bash block is the
    exit status (an int): pytest-xdist cannot serialise that, and the output would be lost anyway.
    """

    def repr_failure(self, excinfo):
        err = excinfo.value
        if isinstance(err, subprocess.CalledProcessError):
            out = (err.stdout or b"").decode(errors="replace")[-3000:]
            errs = (err.stderr or b"").decode(errors="replace")[-3000:]
            return f"{self.name}: command exited with status {err.returncode}\n{out}\n{errs}"
        return str(super().repr_failure(excinfo))


class ExpandedPage(pytest.File):
    def collect(self):
        for block in page_blocks(self.path):
            if block.expanded.syntax not in RUN_SYNTAXES:
                continue
            item = PageBlockItem.from_parent(parent=self, name=block.label)
            item.obj = block.expanded
            for mark in block.marks:
                item.add_marker(eval(mark, {"sys": sys, "pytest": pytest}))  # as pytest-codeblocks does
            yield item


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch):
    monkeypatch.chdir(REPO)  # pages show commands relative to the repository root


def pytest_collection_modifyitems(config, items):
    n = cuda_device_count()
    for item in items:
        for name, (should_skip, reason) in SKIP_REASONS.items():
            if item.get_closest_marker(name) and should_skip(n):
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_terminal_summary(terminalreporter):
    counts = dict.fromkeys(SKIP_REASONS, 0)
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        for name, (_, text) in SKIP_REASONS.items():
            if text in reason:
                counts[name] += 1
    terminalreporter.write_sep("=", "GPU-dependent checks")
    terminalreporter.write_line(f"skipped, need a CUDA GPU: {counts['cuda']}")
    terminalreporter.write_line(f"skipped, need two or more CUDA GPUs: {counts['multi_gpu']}")
    terminalreporter.write_line(f"skipped, show CPU-only output (GPU present): {counts['no_cuda']}")
    terminalreporter.write_line(f"CUDA GPUs visible to this run: {cuda_device_count()}")


