"""What docs/{en,zh}/cpu-threads.md (CPU threads) says, asserted on the installed PyTorch: the thread pools and
OMP_NUM_THREADS, DataLoader workers, torchrun's one thread per process, and the recorded speed-ups in the prose."""

from __future__ import annotations

import io
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from measurements import (
    measurement,
    thread_rows,
)
from site_pages import DOCS, LANGUAGES, REPO, SNIPPETS


def page_text(lang: str) -> str:
    return (DOCS / lang / "cpu-threads.md").read_text(encoding="utf-8")


THREAD_SPEEDUPS = {  # the page's words for the two ratios of the record's 2-thread row to its 1-thread row
    "en": "matrix product {matmul} times as fast, and the training step {step} times as fast: no faster at all",
    "zh": "开两个线程时，矩阵乘法的速度是单线程的 {matmul} 倍，训练步却只有 {step} 倍，一点也没有变快",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_speed_ups_in_the_prose_are_the_records(lang):
    rows = {int(r[0]): r for r in thread_rows(measurement("snippets/performance/thread_speed.py")["output"])}

    def ms(cell: str) -> float:
        return float(cell.removesuffix(" ms"))

    matmul = ms(rows[1][1]) / ms(rows[2][1])
    step = ms(rows[1][2]) / ms(rows[2][2])
    phrase = THREAD_SPEEDUPS[lang].format(matmul=f"{matmul:.1f}", step=f"{step:.2f}")
    text = " ".join(page_text(lang).split())
    assert phrase in text, phrase
    assert matmul > 1.5 and step < 1.05, "the words say the product gained and the step did not"


MACHINE_LINE = {  # the sentence after threads_here.py, whose output depends on the machine: the recorded machine's
    "en": "({device}, {cores} physical cores, {logical} logical CPUs), PyTorch starts {threads} intra-op and "
          "{interop} inter-op threads",
    "zh": "（{device}，{cores} 个物理核心，{logical} 个逻辑 CPU）上，PyTorch 启动 {threads} 个运算内线程和 "
          "{interop} 个运算间线程",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_machine_line_gives_the_records_thread_counts(lang):
    record = measurement("snippets/performance/thread_speed.py")
    text = " ".join(page_text(lang).split())
    phrase = MACHINE_LINE[lang].format(device=record["device_name"], cores=record["physical_cores"],
                                       logical=record["logical_cpus"], threads=record["torch_threads"],
                                       interop=record["torch_interop_threads"])
    assert phrase in text, phrase


def fresh_python(code: str, env: dict | None = None, **kwargs) -> list[str]:
    """What a new interpreter (one that has not imported torch yet) prints, line by line."""
    environ = {k: v for k, v in os.environ.items() if k not in {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=environ | (env or {}), capture_output=True,
                          text=True, timeout=300, **kwargs)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def physical_cores_of_this_process() -> int:
    allowed = {str(c) for c in os.sched_getaffinity(0)}
    cores = set()
    for block in Path("/proc/cpuinfo").read_text().strip().split("\n\n"):
        fields = {k.strip(): v.strip() for k, v in (ln.split(":", 1) for ln in block.splitlines() if ":" in ln)}
        if fields.get("processor") in allowed and "core id" in fields:
            cores.add((fields.get("physical id", "0"), fields["core id"]))
    return len(cores)


@pytest.mark.skipif(not Path("/proc/cpuinfo").is_file(), reason="counts cores from /proc/cpuinfo (Linux)")
def test_pytorch_starts_one_thread_per_physical_core_it_may_use():
    threads, interop = map(int, fresh_python("import torch; print(torch.get_num_threads(), "
                                             "torch.get_num_interop_threads())"))
    assert threads == interop == physical_cores_of_this_process()
    first = min(os.sched_getaffinity(0))
    pinned = fresh_python("import torch; print(torch.get_num_threads(), torch.get_num_interop_threads())",
                          preexec_fn=lambda: os.sched_setaffinity(0, {first}))
    assert pinned == ["1", "1"]  # as under `taskset -c 0`


def test_omp_num_threads_counts_only_when_set_before_torch_is_imported():
    before = fresh_python("import os; os.environ['OMP_NUM_THREADS'] = '1'; import torch; "
                          "print(torch.get_num_threads())")
    after = fresh_python("import os, torch; n = torch.get_num_threads(); os.environ['OMP_NUM_THREADS'] = '1'; "
                         "print(n, torch.get_num_threads())")
    assert before == ["1"]
    assert int(after[0]) > 1, "needs a machine with two or more cores to tell the two apart"
    assert after[0] == after[1]  # set after the import, it changed nothing
    both = fresh_python("import torch; print(torch.get_num_threads())",
                        {"OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "1"})
    assert both == ["1"]  # MKL_NUM_THREADS wins


def test_the_inter_op_pool_is_sized_once_and_the_intra_op_pool_at_any_time():
    out = fresh_python(
        "import torch\n"
        "a = torch.randn(256, 256); a @ a\n"  # intra-op work does not start the inter-op pool
        "torch.set_num_interop_threads(1)\n"
        "try:\n    torch.set_num_interop_threads(1)\nexcept RuntimeError:\n    print('refused')\n"
        "torch.set_num_threads(1); torch.set_num_threads(3); print(torch.get_num_threads())\n")
    assert out == ["refused", "3"]


def test_a_dataloader_worker_computes_with_one_thread():
    class Threads(torch.utils.data.Dataset):
        def __len__(self):
            return 1

        def __getitem__(self, i):
            return torch.get_num_threads()

    loader = torch.utils.data.DataLoader(Threads(), num_workers=1)
    assert [int(t) for t in loader] == [1]


@pytest.mark.parametrize(("omp", "nproc", "expected", "warns"), [(None, 2, "1", True), ("3", 2, "3", False),
                                                                  (None, 1, None, False)])
def test_torchrun_sets_one_thread_per_process_only_when_it_starts_several(monkeypatch, caplog, omp, nproc,
                                                                          expected, warns):
    from torch.distributed import run

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    if omp:
        monkeypatch.setenv("OMP_NUM_THREADS", omp)
    with caplog.at_level("WARNING", logger="torch.distributed.run"):
        run.config_from_args(run.parse_args(["--standalone", f"--nproc-per-node={nproc}", "x.py"]))
    assert os.environ.get("OMP_NUM_THREADS") == expected
    warnings_ = [r.getMessage() for r in caplog.records if "OMP_NUM_THREADS" in r.getMessage()]
    assert bool(warnings_) == warns
    if warns:  # the pages quote it
        message = " ".join(warnings_[0].replace("*", " ").split())
        for lang in LANGUAGES:
            text = " ".join(page_text(lang).split())
            assert f"`{message}`" in text, f"{lang}: the page does not quote torchrun's warning"


class _Writes(io.RawIOBase):
    """A file that keeps each write() it gets: the system calls an unbuffered stdout would make."""

    def __init__(self):
        self.calls: list[bytes] = []

    def writable(self):
        return True

    def write(self, data):
        self.calls.append(bytes(data))
        return len(data)


def test_each_rank_writes_its_line_in_one_call_so_lines_from_two_ranks_never_splice(monkeypatch):
    # What python -u (PYTHONUNBUFFERED=1) puts on sys.stdout: a text layer that writes through,
    # with no buffer. CI ran the page's `torchrun ... | sort` with it and once got the two lines spliced.
    raw = _Writes()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", write_through=True))
    print("spliced")  # the cause: print() writes its text and its end apart
    assert raw.calls == [b"spliced", b"\n"]
    raw.calls.clear()
    monkeypatch.setenv("RANK", "1")
    runpy.run_path(str(SNIPPETS / "performance" / "torchrun_threads.py"))
    assert len(raw.calls) == 1 and re.fullmatch(rb"rank 1: OMP_NUM_THREADS=\S+, \d+ threads?\n", raw.calls[0])
