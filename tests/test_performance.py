"""What the Performance pages (docs/{en,zh}/performance.md, streams.md, cuda-graphs.md, profiling.md, cpu-threads.md)
teach and the guides got wrong, asserted on the installed PyTorch. Each erratum in
docs/data/errata/performance.yml names one of these tests. CPU tests run everywhere; the CUDA ones run on the GPU job.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from unittest import mock

import pytest
import torch
from torch import nn

from site_pages import DOCS, LANGUAGES, REPO, SNIPPETS, load_data, nav_part
from snippet_runs import run_snippet


@pytest.fixture(scope="module")
def synchronizations():
    """sync_points.py's count of the times a step waits for the GPU (loading the snippet prints its table too)."""
    return runpy.run_path(str(SNIPPETS / "performance" / "sync_points.py"))["synchronizations"]


class TickCounter:
    """A Python thread that counts as fast as it can, giving the GIL back after every tick.

    While the main thread holds the GIL, the counter cannot tick at all; while the main thread waits
    inside PyTorch without the GIL, it ticks freely.
    """

    def __init__(self):
        self.ticks = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.ticks += 1
            time.sleep(0)  # releases the GIL

    def __enter__(self):
        self._thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _train(read_every_step: bool) -> list[float]:
    """Three epochs of a small classifier; the mean loss per epoch, read in one of the two ways."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(512, 20, generator=g)
    y = (x[:, :10].sum(dim=1) > 0).long()
    model = nn.Linear(20, 2)
    nn.init.zeros_(model.weight)
    nn.init.zeros_(model.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    means = []
    for _ in range(3):
        as_float, on_device = 0.0, torch.zeros(())
        for xb, yb in zip(x.split(64), y.split(64), strict=True):
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if read_every_step:
                as_float += loss.item()
            else:
                on_device += loss.detach()
        means.append(as_float / 8 if read_every_step else on_device.item() / 8)
    return means


# ---- reading the loss --------------------------------------------------------------------------------------


@pytest.mark.erratum("loss-item-every-step")
def test_reading_the_loss_every_step_changes_no_result():
    # guide 004: running_loss += loss.item() on every step
    every_step, once = _train(read_every_step=True), _train(read_every_step=False)
    assert every_step == pytest.approx(once, rel=1e-6)
    assert every_step[-1] < every_step[0]


@pytest.mark.cuda
def test_reading_the_loss_every_step_synchronises_every_step(synchronizations):
    loss = torch.randn(64, device="cuda").pow(2).mean()
    torch.cuda.synchronize()
    running = torch.zeros((), device="cuda")
    assert synchronizations(lambda: loss.item()) == 1  # .item(): one wait for the GPU, every time it is called
    assert synchronizations(lambda: running.add_(loss.detach())) == 0  # accumulating on the device: none


@pytest.mark.erratum("data-loading-differs-with-a-gpu")
def test_data_loading_changes_with_a_gpu():
    # guide 004, section 2.2: data loading is the same for CPU and GPU
    data = torch.utils.data.TensorDataset(torch.ones(4, 2))
    loader = torch.utils.data.DataLoader(data, batch_size=2, pin_memory=True)
    if torch.cuda.is_available():
        (batch,) = next(iter(loader))
        assert batch.is_pinned()  # ready for batch.to("cuda", non_blocking=True)
    else:
        with pytest.warns(UserWarning, match="pin_memory"):
            (batch,) = next(iter(loader))
        assert not batch.is_pinned()  # the setting only means something with a GPU


# ---- synchronisation and the GIL ---------------------------------------------------------------------------


@pytest.mark.erratum("logging-loss-is-a-sync-not-the-gil")
def test_torch_releases_the_gil_while_it_computes():
    # guide 003: logging a GPU loss "triggers the GIL" so that all GPUs block
    a = torch.randn(2000, 2000)
    with TickCounter() as counter:
        before = counter.ticks
        a @ a  # one long call into PyTorch
        during = counter.ticks - before
    assert during > 100  # another Python thread ran meanwhile: PyTorch did not hold the GIL


@pytest.mark.cuda
def test_item_waits_for_the_gpu_without_holding_the_gil(synchronizations):
    x = torch.ones((), device="cuda")
    torch.cuda.synchronize()
    with TickCounter() as counter:
        torch.cuda._sleep(1_000_000_000)  # queue roughly half a second or more of GPU work; returns at once
        y = x + 1  # queued behind it
        before, start = counter.ticks, time.perf_counter()
        value = y.item()  # must wait for both
        waited, during = time.perf_counter() - start, counter.ticks - before
    assert value == 2.0
    assert waited > 0.05  # .item() is a synchronisation: it waited for the queued GPU work
    assert during > 100  # ... and meanwhile another Python thread ran: the GIL was released
    assert synchronizations(lambda: y.item()) == 1


@pytest.mark.cuda
def test_copies_to_the_gpu_wait_unless_pinned_and_non_blocking():
    # the performance page and the loss-item-every-step erratum: blocking copies wait every time; the
    # sync debug mode reports them, but not whatever the driver waits for on a pageable non-blocking copy
    result = run_snippet("snippets/performance/copy_waits.py").result(timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    line = re.compile(r"(.+?) +(waits|returns at once), (reported|not reported)")
    seen = {m[1]: (m[2], m[3]) for m in map(line.fullmatch, result.stdout.splitlines()) if m}
    assert len(seen) == 4, result.stdout
    assert seen["batch.to('cuda')"] == ("waits", "reported")
    assert seen["pinned.to('cuda')"] == ("waits", "reported")
    assert seen["pinned.to('cuda', non_blocking=True)"] == ("returns at once", "not reported")
    assert seen["batch.to('cuda', non_blocking=True)"][1] == "not reported"


@pytest.mark.no_cuda
def test_without_a_gpu_synchronize_and_pinning_raise():
    for call in (torch.accelerator.synchronize, torch.cuda.synchronize, lambda: torch.ones(2).pin_memory()):
        with pytest.raises(RuntimeError):
            call()
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.ones(4, 2)), batch_size=2, pin_memory=True
    )
    with pytest.warns(UserWarning, match="pin_memory"):
        (batch,) = next(iter(loader))
    assert not batch.is_pinned()


# ---- profiling a step, and the page's measured numbers ------------------------------------------------------
# A timing is never asserted. What a page shows of a measurement comes from its record (docs/data/measurements/,
# written by tools/record_measurement.py), of the snippet as it is now; a fresh run is checked for its form.

MEASUREMENTS = DOCS / "data" / "measurements"
MEASUREMENT_SCHEMA = DOCS / "data" / "measurement.schema.json"
MEASUREMENT_RECORDS = sorted(MEASUREMENTS.glob("*.json"))
# a table a page draws from a record: the marker line, the header, the alignment row, the data rows
MEASURED_TABLE = re.compile(r"^<!-- measurement: (?P<snippet>\S+) -->\n(?P<table>(?:\|.*\|\n)+)", re.M)
PROFILE_COLUMNS = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
NAMED_RANGES = ["forward", "backward", "optimizer step"]


def measurement(snippet: str) -> dict:
    return load_data(MEASUREMENTS / f"{Path(snippet).stem}.json", MEASUREMENT_SCHEMA)


def cells(row: str) -> list[str]:
    return [c.strip().strip("`") for c in row.strip().strip("|").split("|")]


# the pages of Performance, one page until the split of 2026-11-29 (mkdocs.yml, extra.moved_sections)
PERFORMANCE_PAGES = nav_part("Performance")


def performance_text(lang: str) -> str:
    """The pages of Performance in lang, one after the other, each with its whitespace as written."""
    return "\n\n".join((DOCS / lang / name).read_text(encoding="utf-8") for name in PERFORMANCE_PAGES)


def measured_tables(lang: str) -> dict[str, tuple[list[str], list[list[str]], str]]:
    """snippet -> (header cells, data rows, the paragraph after the table) of each measured table on the pages."""
    found = {}
    for name in PERFORMANCE_PAGES:
        text = (DOCS / lang / name).read_text(encoding="utf-8")
        for m in MEASURED_TABLE.finditer(text):
            rows = m["table"].strip().splitlines()
            after = text[m.end():].lstrip("\n").split("\n\n", 1)[0]
            found[m["snippet"]] = (cells(rows[0]), [cells(r) for r in rows[2:]], after)
    return found


def profile_rows(output: str) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a key_averages() table: columns are at least two spaces apart."""
    lines = [ln for ln in output.splitlines() if ln.strip() and not set(ln.strip()) <= {"-", " "}]
    header = re.split(r" {2,}", lines[0].strip())
    rows = [re.split(r" {2,}", ln.strip()) for ln in lines[1:] if not ln.startswith("Self CPU time total")]
    return header, rows


THREAD_ROW = re.compile(r"^ *(\d+) +(\d+\.\d+ ms) +(\d+\.\d+ ms)$")


def thread_rows(output: str) -> list[list[str]]:
    lines = output.strip().splitlines()
    assert lines[0].split() == ["threads", "1024x1024", "matmul", "training", "step"], lines[0]
    rows = [THREAD_ROW.match(ln) for ln in lines[1:]]
    assert all(rows), output
    return [list(r.groups()) for r in rows]


def test_the_profile_table_parser_reads_columns_and_rows():
    table = (
        "-------  ----------\n"
        "   Name    Self CPU\n"
        "-------  ----------\n"
        "optimizer step     1.0ms\n"
        "Self CPU time total: 1.0ms\n"
    )
    assert profile_rows(table) == (["Name", "Self CPU"], [["optimizer step", "1.0ms"]])


@pytest.mark.parametrize("path", MEASUREMENT_RECORDS, ids=lambda p: p.name)
def test_a_measurement_record_is_of_the_snippet_as_it_is_now(path):
    record = load_data(path, MEASUREMENT_SCHEMA)
    snippet = REPO / record["snippet"]
    assert path.stem == snippet.stem, "a record is named after its snippet"
    assert record["snippet_sha256"] == hashlib.sha256(snippet.read_bytes()).hexdigest(), (
        f"{record['snippet']} changed since it was measured: run tools/record_measurement.py again")
    assert record["command"].startswith(f"python tools/record_measurement.py {record['snippet']}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_shows_every_measurement_and_only_recorded_numbers(lang):
    tables = measured_tables(lang)
    assert sorted(tables) == sorted(load_data(p, MEASUREMENT_SCHEMA)["snippet"] for p in MEASUREMENT_RECORDS)
    for snippet, (header, rows, after) in tables.items():
        record = measurement(snippet)
        if snippet.endswith("profile_step.py"):
            recorded_header, recorded = profile_rows(record["output"])
            assert recorded_header == PROFILE_COLUMNS
            columns = [recorded_header.index(name) for name in header]  # an excerpt: some of the columns
            assert len(rows) >= 4
            assert rows == [[row[i] for i in columns] for row in recorded[: len(rows)]], f"{lang}: {snippet}"
        else:
            assert rows == thread_rows(record["output"]), f"{lang}: {snippet}"
        # where and when: the sentence under the table
        for fact in (record["date"][:10], record["device_name"], f"{record['physical_cores']}",
                     record["torch_version"].split("+")[0], f"{record['load_average']}"):
            assert fact in after, f"{lang}: the line under the {snippet} table lacks {fact!r}"


def test_a_fresh_profile_prints_a_table_of_the_recorded_form():
    # the numbers change from run to run; the columns and the named ranges do not
    run = run_snippet("snippets/performance/profile_step.py").result(timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    header, rows = profile_rows(run.stdout)
    assert header == PROFILE_COLUMNS
    names = [row[0] for row in rows]
    assert "forward" in names and "backward" in names, names  # the largest totals; the eight rows may leave out
    # the optimizer step, which the trace always holds
    assert all(len(row) == len(header) and row[-1].isdigit() for row in rows)
    assert re.search(r"^Self CPU time total: \d", run.stdout, re.M)
    trace = json.loads((Path(tempfile.gettempdir()) / "step-trace.json").read_text())
    assert {e.get("name") for e in trace["traceEvents"]} >= set(NAMED_RANGES)


@pytest.mark.no_cuda
def test_without_a_driver_the_profiler_says_so_on_stderr_and_profiles_the_cpu():
    run = run_snippet("snippets/performance/profile_step.py").result(timeout=600)
    assert run.returncode == 0 and "backward" in run.stdout
    assert "gpuGetDeviceCount failed with code 35" in run.stderr  # cudaErrorInsufficientDriver


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
    text = " ".join(performance_text(lang).split())
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
    text = " ".join(performance_text(lang).split())
    phrase = MACHINE_LINE[lang].format(device=record["device_name"], cores=record["physical_cores"],
                                       logical=record["logical_cpus"], threads=record["torch_threads"],
                                       interop=record["torch_interop_threads"])
    assert phrase in text, phrase


# ---- CPU threads -------------------------------------------------------------------------------------------


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
            text = " ".join(performance_text(lang).split())
            assert f"`{message}`" in text, f"{lang}: the Performance pages do not quote torchrun's warning"


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


# ---- streams -----------------------------------------------------------------------------------------------


def test_the_stream_api_the_page_names_is_device_agnostic():
    # the page's blocks need a GPU; what they rely on is checked here, in the installed torch
    assert issubclass(torch.cuda.Stream, torch.Stream)  # the CUDA-only spelling mixes with the generic one
    for name in ("wait_stream", "record_event", "wait_event", "synchronize", "__enter__", "__exit__"):
        assert hasattr(torch.Stream, name), name  # `with stream:` and wait_stream
    for name in ("current_stream", "set_stream"):
        assert callable(getattr(torch.accelerator, name)), name
    assert "returns without waiting" in " ".join(torch.cuda.Stream.wait_stream.__doc__.split())
    # a CPU stream object exists, and `with` switches to it without a GPU
    with torch.Stream(device="cpu") as cpu_stream:
        assert cpu_stream.device == torch.device("cpu")


def test_record_stream_and_backward_streams_are_as_the_page_says():
    doc = " ".join(torch.Tensor.record_stream.__doc__.split())
    assert "The caching allocator is aware of only the stream where a tensor was allocated" in doc
    assert "manually ensure that any non-creation stream uses of a tensor are synced back" in doc
    for documented in (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad):
        assert "bwd-cuda-stream-semantics" in documented.__doc__, documented


# ---- torch.Event (profiling.md#timing) -----------------------------------------------------------------------


def test_torch_event_is_the_device_agnostic_event_the_page_describes():
    assert issubclass(torch.cuda.Event, torch.Event)
    doc = torch.Event.__doc__
    assert doc.lstrip().startswith("Event(device=None, *, enable_timing=False, blocking=False, interprocess=False)")
    assert "If not given, the current :ref:`accelerator<accelerators>` type will be used." in " ".join(doc.split())
    assert "If not given, the current stream will be used." in torch.Event.record.__doc__
    assert "elapsed time in milliseconds" in torch.Event.elapsed_time.__doc__
    assert "prevents the CPU thread from proceeding until the event completes" in torch.Event.synchronize.__doc__


def test_a_cpu_event_can_be_made_but_not_recorded():
    event = torch.Event(device="cpu", enable_timing=True)
    assert event.device == torch.device("cpu")
    with pytest.raises(RuntimeError) as error:
        event.record()
    assert str(error.value) == "cpu backend doesn't support events."
    for lang in LANGUAGES:
        page = (DOCS / lang / "profiling.md").read_text(encoding="utf-8")
        assert "`RuntimeError: cpu backend doesn't support events.`" in page, lang


@pytest.mark.cuda
def test_event_timing_prints_one_line_of_milliseconds_on_the_accelerator():
    run = run_snippet("snippets/performance/event_timing.py").result(timeout=600)
    assert run.returncode == 0, run.stderr
    match = re.fullmatch(r"a @ a on cuda: (\d+\.\d{3}) ms\n", run.stdout)
    assert match and float(match[1]) > 0, run.stdout


# ---- CUDA graphs (cuda-graphs.md) ------------------------------------------------------------------------------
# The page's blocks need a CUDA GPU; what its prose says of the three APIs is checked here, in the installed torch.


def _graphs_page(lang: str) -> str:
    return (DOCS / lang / "cuda-graphs.md").read_text(encoding="utf-8")


def test_torch_cuda_graph_captures_on_a_side_stream_of_its_own_into_a_pool():
    params = inspect.signature(torch.cuda.graph).parameters
    assert list(params)[:4] == ["cuda_graph", "pool", "stream", "capture_error_mode"]
    doc = " ".join(torch.cuda.graph.__doc__.split())
    assert "If not supplied, ``graph`` sets its own internal side stream as the current stream in the context." in doc
    assert callable(torch.cuda.CUDAGraph.pool) and callable(torch.cuda.CUDAGraph.replay)
    for lang in LANGUAGES:
        assert "`torch.cuda.graph(g2, pool=g1.pool())`" in _graphs_page(lang), lang


def test_make_graphed_callables_asks_what_the_page_lists():
    params = inspect.signature(torch.cuda.make_graphed_callables).parameters
    assert list(params)[:2] == ["callables", "sample_args"] and params["num_warmup_iters"].default == 3
    doc = " ".join(torch.cuda.make_graphed_callables.__doc__.split())
    for rule in (
        "``sample_args`` for each callable must contain only Tensors.",
        "The ``requires_grad`` state of each Tensor in ``sample_args`` must match the state that's expected",
        "you must pass its arguments in the same order and format they appeared in that callable's ``sample_args``",
        "must not have module hooks registered on them at the time they are passed. However, registering hooks "
        "on modules *after* passing them through :func:`~torch.cuda.make_graphed_callables` is allowed.",
        "only parameters may be trainable.",
        "you may not add or remove any of that Module's parameters or buffers.",
        "The context manager `torch.cuda.amp.autocast()` must have `cache_enabled=False`.",
        "their order in the tuple must be the same order they'll run in the live workload.",
        "If you pass a tuple of several callables, their captures will use the same memory pool.",
    ):
        assert rule in doc, rule
    # autocast with its cache on is refused before any CUDA work
    with (
        mock.patch("torch.is_autocast_enabled", return_value=True),
        mock.patch("torch.is_autocast_cache_enabled", return_value=True),
        pytest.raises(RuntimeError, match="does not support the autocast caching"),
    ):
        torch.cuda.make_graphed_callables(nn.Linear(2, 2), (torch.zeros(1, 2),))
    # the graphed forward runs only in the mode it was captured in; in the other, the module's own forward
    source = inspect.getsource(torch.cuda.make_graphed_callables)
    # (torch 2.15 holds the module weakly and rebinds its original forward per call; 2.14 read func.training)
    assert "if module.training == graph_training_state:" in source
    assert "return orig_call(module, *user_args, **user_kwargs)" in source


def test_reduce_overhead_is_what_the_page_says():
    import torch._inductor.config as inductor_config
    from torch._inductor import cudagraph_trees, cudagraph_utils

    doc = " ".join(torch.compile.__doc__.split())
    assert ('"reduce-overhead" is a mode that reduces the overhead of python with CUDA graphs, '
            "useful for small batches.") in doc
    assert "Reduction of overhead can come at the cost of more memory usage" in doc
    assert "we only reduce overhead for CUDA only graphs which do not mutate inputs" in doc
    assert inductor_config.triton.cudagraph_trees is True
    # a graph per shape, and a warning past 8 of them
    assert inductor_config.triton.cudagraph_skip_dynamic_graphs is False
    config_source = inspect.getsource(inductor_config)
    assert "If False, we will re-record a graph for each unique set of shape inputs" in config_source
    assert inductor_config.triton.cudagraph_dynamic_shape_warn_limit == 8
    # the skip message, logged by the "cudagraphs" artifact (TORCH_LOGS=cudagraphs)
    assert 'return f"skipping cudagraphs due to {reason}"' in inspect.getsource(cudagraph_utils)
    assert 'getArtifactLogger(__name__, "cudagraphs")' in inspect.getsource(cudagraph_utils)
    assert "accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run" in (
        inspect.getsource(cudagraph_trees))
    assert "Indicates that a new iteration of inference or training is about to begin." in (
        torch.compiler.cudagraph_mark_step_begin.__doc__)
    for lang in LANGUAGES:
        page = " ".join(_graphs_page(lang).split())
        for quoted in ("`TORCH_LOGS=cudagraphs`", "`skipping cudagraphs due to`",
                       "accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run"):
            assert quoted in page, (lang, quoted)


@pytest.mark.cuda
def test_a_capture_that_makes_the_cpu_wait_fails():
    # in a process of its own: a failed capture can leave CUDA unusable for the rest of the process
    from snippet_runs import run_code

    run = run_code(
        "import torch\n"
        "x = torch.ones(3, device='cuda')\n"
        "g = torch.cuda.CUDAGraph()\n"
        "try:\n"
        "    with torch.cuda.graph(g):\n"
        "        (x * 2).sum().item()\n"
        "except RuntimeError as error:\n"
        "    print('refused:', type(error).__name__)\n"
    )
    assert run.stdout.startswith("refused:"), run.stdout + run.stderr
