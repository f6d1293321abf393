"""Helpers that the tests of the Several GPUs pages share (tests/test_multi_gpu.py, test_ddp.py, test_ddp_training.py,
test_ddp_checkpoints.py, test_fsdp.py, test_distributed_debugging.py): fresh interpreters with a chosen environment,
two Gloo ranks under torchrun, and the part's sections."""

from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from site_build import finished
from site_pages import REPO, nav_part


def start_python(code: str, **env: str | None) -> subprocess.Popen:
    """A fresh interpreter running `code`, with environment variables set (or removed, if None)."""
    environ = dict(os.environ)
    for name, value in env.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=environ, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def output_of(process: subprocess.Popen) -> str:
    run = finished(process)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout.strip()


def run_python(code: str, **env: str | None) -> str:
    """stdout of a fresh interpreter running `code` (see start_python)."""
    return output_of(start_python(code, **env))


def torchrun_two_cpu_ranks(script: str, tmp_path, **env: str) -> subprocess.CompletedProcess:
    """`torchrun --standalone --nproc-per-node=2 script` with the GPUs hidden (Gloo), its logs in tmp_path."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", "--log-dir",
               str(tmp_path / "logs"), script]
    return subprocess.run(command, cwd=REPO, env=dict(os.environ, CUDA_VISIBLE_DEVICES="", **env),
                          capture_output=True, text=True, timeout=600)


# the pages of Several GPUs (one page until 2026-11-29), as the menu lists them
PART_PAGES = nav_part("Several GPUs")


def page_text(lang: str, anchor: str) -> str:
    """The page of Several GPUs that has the section anchor."""
    texts = ((REPO / "docs" / lang / name).read_text(encoding="utf-8") for name in PART_PAGES)
    return next(text for text in texts if f"{{ #{anchor} }}" in text)


def section(lang: str, anchor: str) -> str:
    """The text of one section of Several GPUs, from its heading to the next H2."""
    return page_text(lang, anchor).split(f"{{ #{anchor} }}")[1].split("\n## ")[0]


# ---- PyTorch's machine code: what a library's functions read, where no header says (x86-64 Linux, binutils) ----

TORCH_LIB = Path(torch.__file__).parent / "lib"
BINUTILS = pytest.mark.skipif(platform.machine() != "x86_64" or not shutil.which("objdump")
                              or not shutil.which("readelf"), reason="reads x86-64 machine code with binutils")


@functools.cache
def functions(library: Path) -> tuple[tuple[int, int, str], ...]:
    """(address, size, mangled name) of every function of a library; read once (libtorch_cuda.so is ~500 MB)."""
    table = subprocess.run(["readelf", "-Ws", str(library)], capture_output=True, text=True, check=True).stdout
    # readelf writes a large size in hex (0x1ce62), others in decimal
    return tuple((int(f[1], 16), int(f[2], 0), f[7]) for f in map(str.split, table.splitlines())
                 if len(f) > 7 and f[3] == "FUNC" and int(f[2], 0) > 0)


def function(library: Path, prefix: str) -> tuple[int, int]:
    """(address, size) of the one function whose mangled name starts with prefix (its .cold part aside)."""
    (where,) = {(a, s) for a, s, name in functions(library) if name.startswith(prefix) and not name.endswith(".cold")}
    return where


@functools.cache
def machine_code(library: Path, spans: tuple[tuple[int, int], ...]) -> tuple[str, ...]:
    """objdump -C's lines from the first span's start to the last one's end."""
    start, stop = min(a for a, _ in spans), max(a + s for a, s in spans)
    return tuple(subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", f"--start-address={start:#x}",
                                 f"--stop-address={stop:#x}", str(library)],
                                capture_output=True, text=True, check=True, timeout=300).stdout.splitlines())
