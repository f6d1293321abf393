"""Where the troubleshooting page quotes a message it cannot show from a page block, the quote must be
real: produced by the installed torch, present in its binaries, or recorded on the project's GPU run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch

from site_pages import DOCS, LANGUAGES, REPO
from snippet_runs import Run, run_code

TORCH_LIB = Path(torch.__file__).parent / "lib"
GPU_RUN = REPO.parent / "shared" / "gpu-runs" / "2026-11-22-h100" / "snippet-outputs"


def _pages() -> dict[str, str]:
    return {lang: (DOCS / lang / "troubleshooting.md").read_text(encoding="utf-8") for lang in LANGUAGES}


def _quoted_everywhere(text: str) -> None:
    for lang, page in _pages().items():
        assert f"`{text}`" in page, f"{lang} page does not quote {text!r}"


def _run(code: str, *args: str) -> Run:
    return run_code(textwrap.dedent(code), *args)


def test_not_compiled_with_cuda_is_what_torch_raises_without_its_cuda_functions():
    # A CPU-only build lacks torch._C._cuda_getDeviceCount; hiding it sends a CUDA build down the same path.
    result = _run("""
        import torch
        del torch._C._cuda_getDeviceCount
        torch.zeros(1, device="cuda")
    """)
    assert result.returncode != 0
    message = result.stderr.strip().splitlines()[-1]
    assert message == "AssertionError: Torch not compiled with CUDA enabled"
    _quoted_everywhere(message)


def test_set_device_without_cuda_fails_with_an_attribute_error_not_the_assertion():
    # torch.cuda.set_device calls torch._C._cuda_setDevice without _lazy_init, so a CPU-only build, which
    # lacks that binding, never reaches the AssertionError above; the page names the error it does raise.
    result = _run("""
        import torch
        del torch._C._cuda_setDevice
        torch.cuda.set_device(0)
    """)
    assert result.returncode != 0
    message = result.stderr.strip().splitlines()[-1]
    assert message == "AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'"
    _quoted_everywhere(message)


FORKED_WORKER_ON_GPU = """
        import sys
        import torch
        from torch.utils.data import DataLoader

        class OnGpu(torch.utils.data.Dataset):
            def __len__(self):
                return 2
            def __getitem__(self, i):
                return torch.zeros(1, device="cuda")

        if "ask" in sys.argv:
            torch.cuda.is_available()
        try:
            next(iter(DataLoader(OnGpu(), num_workers=1, multiprocessing_context="fork")))
        except RuntimeError as err:
            print(str(err).splitlines()[-1])
"""
FORK_ERROR = "Cannot re-initialize CUDA in forked subprocess"


def test_merely_asking_is_available_makes_cuda_unusable_in_forked_workers():
    # The page's block asks is_available() first and gets the fork error, on any machine, a CPU one included:
    # the question starts CUDA in the parent (or finds it missing) and marks every later fork as bad.
    asked = _run(FORKED_WORKER_ON_GPU, "ask")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.strip().startswith(f"RuntimeError: {FORK_ERROR}")


def test_the_section_points_at_the_check_that_leaves_forks_alone():
    # is_available() poisons fork unless PYTORCH_NVML_BASED_CUDA_CHECK=1 (its docstring, tests/data/citations.yml);
    # devices.md explains it. Not run here: without NVML (no driver) the check falls back to the CUDA runtime and
    # poisons fork anyway.
    for lang, page in _pages().items():
        start = page.index("{ #cuda-in-workers }")
        link = "[`PYTORCH_NVML_BASED_CUDA_CHECK=1`](devices.md#nvml-check)"
        assert link in page[start : page.index("\n## ", start)], lang


def test_without_the_question_the_forked_worker_gets_no_fork_error():
    # The same worker without it: on a GPU machine it makes its tensor, here it fails for want of a driver.
    result = _run(FORKED_WORKER_ON_GPU)
    assert result.returncode == 0, result.stderr
    if torch.cuda.is_available():
        assert result.stdout.strip() == ""
    else:
        assert result.stdout.strip().startswith("RuntimeError: Found no NVIDIA driver on your system")


WORKER_STARTS_CUDA = """
        import functools
        import sys
        import torch
        from torch.utils.data import DataLoader

        torch.cuda.is_available()
        # A list pickles into a forkserver child; the init function starts CUDA there, before any sample.
        loader = DataLoader([0, 1], num_workers=1, multiprocessing_context=sys.argv[1],
                            worker_init_fn=functools.partial(torch.zeros, 1, device="cuda"))
        try:
            next(iter(loader))
        except RuntimeError as err:
            print(str(err).splitlines()[-1])
"""


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_only_forked_workers_hit_the_error_and_python_3_14_starts_them_from_a_forkserver(method):
    # Python 3.14 made forkserver Linux's default start method (docs.python.org/3/whatsnew/3.14.html,
    # "multiprocessing"; python/cpython#84559), and torch 2.15.0 supports 3.14 (its METADATA classifiers).
    # A forkserver worker is forked from a fresh server process that never asked CUDA, so after the same
    # top-level is_available() it is not marked: here it fails for want of a driver, on a GPU machine it works.
    # Both pages and the glossary say so, naming 3.13 as the last version whose default is fork.
    metadata = next(Path(torch.__file__).parent.parent.glob("torch-*.dist-info")) / "METADATA"
    assert "Classifier: Programming Language :: Python :: 3.14" in metadata.read_text(encoding="utf-8")
    result = _run(WORKER_STARTS_CUDA, method)
    assert result.returncode == 0, result.stderr
    if method == "fork":
        assert result.stdout.strip().startswith(f"RuntimeError: {FORK_ERROR}")
    else:
        assert FORK_ERROR not in result.stdout + result.stderr
        if not torch.cuda.is_available():
            assert result.stdout.strip().startswith("RuntimeError: Found no NVIDIA driver on your system")
    for lang, page in _pages().items():
        section = page.split("{ #cuda-in-workers }")[1].split("\n## ")[0]
        assert "3.13" in section and "3.14" in section and "`forkserver`" in section, lang
        glossary = (DOCS / lang / "glossary.md").read_text(encoding="utf-8")
        row = next(line for line in glossary.splitlines() if "troubleshooting.md#cuda-in-workers" in line)
        assert "3.13" in row and "3.14" in row and "forkserver" in row, lang


def test_the_fix_runs_whatever_starts_the_workers(tmp_path):
    # The section's fix, cpu_in_workers.py, with its workers started by spawn (macOS and Windows) and by forkserver
    # (Linux from Python 3.14): both import the file first, which is why its work sits under the __main__ guard.
    import subprocess
    import sys

    script = (REPO / "snippets/troubleshooting/cpu_in_workers.py").read_text(encoding="utf-8")
    guard = 'if __name__ == "__main__":\n'
    assert script.count(guard) == 1
    runs = {}
    for method in ("spawn", "forkserver"):
        forced = tmp_path / f"cpu_in_workers_{method}.py"
        forced.write_text(script.replace(guard, f"{guard}    torch.multiprocessing.set_start_method({method!r})\n"))
        runs[method] = subprocess.Popen([sys.executable, str(forced)], cwd=tmp_path, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for method, process in runs.items():
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, f"{method}: {err[-2000:]}"
        assert out.splitlines() == ["[0, 1, 4, 9]", "[16, 25, 36, 49]"], method



# ---- #bootstrapping-phase: workers started by spawn (Windows, macOS) -------------------------------------

BOOTSTRAPPING = ("An attempt has been made to start a new process before the current process has finished its "
                 "bootstrapping phase.")


def test_spawn_is_the_default_start_method_on_windows_and_macos():
    # the section's premise, in the standard library that starts the workers: macOS (darwin) and Windows default to
    # spawn, other POSIX systems to fork (up to Python 3.13)
    import inspect
    import multiprocessing.context
    import re

    source = inspect.getsource(multiprocessing.context)
    spawn_default = "_default_context = DefaultContext(_concrete_contexts['spawn'])"
    assert re.search(r"if sys.platform == 'darwin':\n(?:\s*#.*\n)*\s*" + re.escape(spawn_default), source)
    windows = source.split("if sys.platform != 'win32':")[1].split("\nelse:\n")[1]
    assert spawn_default in windows
    assert "multiprocessing_context" in inspect.signature(torch.utils.data.DataLoader).parameters


def _run_python(*args: str, cwd: Path, path: Path | None = None) -> tuple[int, str, str]:
    """python args in cwd; path, if given, goes first on PYTHONPATH."""
    import os
    import subprocess
    import sys

    env = os.environ.copy()
    if path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    return done.returncode, done.stdout, done.stderr


def _flat(text: str) -> str:
    return " ".join(text.split())


# Test scaffolding, not the reader's code: of the two spawned workers, the second to reach Process.start (its
# DataLoader has made its queues by then) stalls there, as a worker slowed by a busy machine does; the first waits
# for it, then goes on to fail.
STALL_THE_SECOND_WORKER = """
import os, sys, time
if "--multiprocessing-fork" in sys.argv:
    import multiprocessing.process
    start = multiprocessing.process.BaseProcess.start

    def stalled_start(self):
        try:
            os.close(os.open("first-worker", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            os.close(os.open("second-worker", os.O_CREAT))
            time.sleep(60)  # until the main process, exiting, kills it (DataLoader workers are daemons)
        else:
            deadline = time.monotonic() + 120
            while not os.path.exists("second-worker") and time.monotonic() < deadline:
                time.sleep(0.05)
        return start(self)

    multiprocessing.process.BaseProcess.start = stalled_start
"""


def test_without_the_main_guard_each_spawned_worker_stops_with_the_bootstrapping_error(tmp_path):
    # spawn_loader.py with its guard removed, as readers write it: the workers' error, then the main process's, then
    # (on a busy machine) the resource tracker's warning. That comes when a worker is still starting up as the main
    # process exits and kills its daemonic workers: one killed after making its queues leaves semaphores that the
    # tracker, a process of its own, reports as leaked after the main process's last line (seen once in CI). The
    # run stalls one worker so that the warning comes every time.
    import re

    script = (REPO / "snippets/troubleshooting/spawn_loader.py").read_text(encoding="utf-8")
    guard = 'if __name__ == "__main__":\n    main()\n'
    assert script.endswith(guard)
    unguarded = tmp_path / "no_guard.py"
    unguarded.write_text(script.replace(guard, "main()\n"), encoding="utf-8")
    (tmp_path / "stall").mkdir()
    (tmp_path / "stall" / "sitecustomize.py").write_text(STALL_THE_SECOND_WORKER, encoding="utf-8")
    returncode, out, err = _run_python(str(unguarded), cwd=tmp_path, path=tmp_path / "stall")
    assert returncode != 0 and out == ""
    assert f"RuntimeError: {BOOTSTRAPPING}" in _flat(err)
    assert "if __name__ == '__main__':" in err  # Python's advice, under the message
    # last: the main process's error, then the tracker's warning and the line of its source that warns (Python 3.13
    # and later add ": {names}" to the message)
    *_, last, warning, source = err.strip().splitlines()
    assert re.fullmatch(r"RuntimeError: DataLoader worker \(pid\(s\) [\d, ]+\) exited unexpectedly", last), last
    warning = re.search(r"UserWarning: (resource_tracker: There appear to be \d+ leaked semaphore objects to clean up "
                        r"at shutdown)(: \{.*\})?$", warning)
    assert warning and source.startswith(" "), (warning, source)
    quoted = "UserWarning: " + re.sub(r"\d+", "N", warning[1])
    for lang, page in _pages().items():
        section = page.split("{ #bootstrapping-phase }")[1].split("\n## ")[0]
        assert f"`RuntimeError: {BOOTSTRAPPING}`" in section, lang
        assert "`RuntimeError: DataLoader worker (pid(s) …) exited unexpectedly`" in section, lang
        assert f"`{quoted}`" in _flat(section), lang
        assert f"[`{BOOTSTRAPPING[:-1]}`](#bootstrapping-phase)" in page, lang  # the table at the top


def test_a_spawned_worker_cannot_import_a_class_defined_where_there_is_no_file(tmp_path):
    # a notebook cell, like `python -c`, defines the dataset in a __main__ that has no file to import (checked once
    # in a Jupyter kernel too: the same message); the guard is not what is missing there
    script = (REPO / "snippets/troubleshooting/spawn_loader.py").read_text(encoding="utf-8")
    code = script.split("\n\n\ndef main():")[0] + textwrap.dedent("""

        loader = DataLoader(Squares(), batch_size=4, num_workers=1, multiprocessing_context="spawn")
        next(iter(loader))
    """)
    returncode, _, err = _run_python("-c", code, cwd=tmp_path)
    message = "AttributeError: Can't get attribute 'Squares' on <module '__main__' (built-in)>"
    assert returncode != 0 and message in err.splitlines()
    assert BOOTSTRAPPING not in _flat(err)
    for lang, page in _pages().items():
        assert f"`{message}`" in page.split("{ #bootstrapping-phase }")[1].split("\n## ")[0], lang


# Quotes of GPU-only messages, and the installed library whose text must contain each one.
IN_BINARIES = [
    ("libc10_cuda.so", "CUDA out of memory. Tried to allocate"),
    ("libc10_cuda.so", "If reserved but unallocated memory is large try setting "
                       "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."),
    ("libc10_cuda.so", "CUDA kernel errors might be asynchronously reported at some other API call, "
                       "so the stacktrace below might be incorrect."),
    ("libc10_cuda.so", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"),
    ("libtorch_cpu.so", "Expected all tensors to be on the same device"),
]


@pytest.mark.parametrize(("library", "text"), IN_BINARIES, ids=[t[:40] for _, t in IN_BINARIES])
def test_quoted_gpu_messages_are_in_the_installed_torch(library, text):
    path = TORCH_LIB / library
    if not path.is_file():
        pytest.skip(f"{library} is not part of this torch build")
    assert text.encode() in path.read_bytes()
    _quoted_everywhere(text)


def test_device_side_assert_is_the_cuda_runtimes_own_description():
    cudart = sorted((Path(torch.__file__).parent.parent / "nvidia").glob("**/libcudart.so*"))
    if not cudart:
        pytest.skip("no CUDA runtime library beside this torch")
    assert b"device-side assert triggered" in cudart[0].read_bytes()
    _quoted_everywhere("CUDA error: device-side assert triggered")


# Messages quoted from the project's H100 run, with the snippet whose output recorded them.
FROM_GPU_RUN = [
    ("snippets_tensors_mixed_devices_cuda.py.out",
     "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"),
    ("snippets_modules_mismatch_cuda.py.out",
     "Expected all tensors to be on the same device, but got mat1 is on cuda:0, different from other tensors "
     "on cpu (when checking argument in method wrapper_CUDA_addmm)"),
]


@pytest.mark.parametrize(("record", "text"), FROM_GPU_RUN, ids=[r for r, _ in FROM_GPU_RUN])
def test_messages_quoted_from_the_h100_run_are_in_its_records(record, text):
    _quoted_everywhere(text)
    if not GPU_RUN.is_dir():
        pytest.skip(f"the GPU run's records are not beside this checkout ({GPU_RUN})")
    assert text in (GPU_RUN / record).read_text(encoding="utf-8")


def test_a_zero_dimensional_cpu_tensor_is_the_main_exception_to_the_same_device_rule():
    on_device = torch.ones(2, device="meta")  # stands in for a GPU tensor
    assert (on_device + torch.tensor(3.0)).device.type == "meta"
    with pytest.raises(RuntimeError, match="device"):
        on_device + torch.ones(2)
    # not the only one: CPU indices reach a tensor on another device too
    assert on_device[torch.tensor([1, 0])].device.type == "meta"


def test_out_of_memory_is_a_runtime_error_that_can_be_caught_by_its_own_name():
    assert issubclass(torch.OutOfMemoryError, RuntimeError)
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    _quoted_everywhere("torch.OutOfMemoryError")
