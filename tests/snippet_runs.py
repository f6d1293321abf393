"""Each snippet run as a program once per test run (`python snippets/x/y.py`, as a reader runs a copy), the
result shared by every test that checks what a program prints; and the tests' own `python -c` probes.

Glue because a fresh interpreter spends seconds importing torch, ~100 times: a forkserver (stdlib
multiprocessing) imports torch once (CUDA not started) and forks a new process per program, two at a time.
Programs whose point is what happens before torch is imported get an interpreter of their own. Under pytest-xdist
a program's run is shared between the workers too (run_share.once): the first to ask runs it.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import runpy
import subprocess
import sys
import tempfile
import traceback
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

import run_share
from block_warnings import Warned, from_stderr, recording
from site_pages import PROGRAM_ARGS as ARGS  # command-line programs get the arguments a quick real run needs
from site_pages import REPO

# it sets CUDA variables before `import torch`: a process that has imported torch already would not show that
OWN_INTERPRETER = {"snippets/multi_gpu/misspellings.py"}
# called with (snippet, Run) when a program's run with its usual arguments (ARGS' or none) ends, in the process
# that asked for it (tests/gpu_job_plugin.py records each one's output for the GPU job, under the snippet's name:
# a run with other arguments, such as a test's bad input, would overwrite it)
run_listeners: list = []


@dataclass(frozen=True)
class Run:
    command: str
    returncode: int
    stdout: str
    stderr: str
    warnings: tuple[Warned, ...] = ()  # every warning it raised, printed or not (block_warnings.recording)


def _in_forked_process(program: str, args: list[str], code: str | None = None) -> Run:
    """Run the program file as __main__ (or, with program "-c", code as `python -c` runs it) in this fresh process,
    its stdout and stderr (C-level output too) captured."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryDirectory() as tmp:
        sys.argv = [program, *(a.replace("{tmp}", tmp) for a in args)]
        sys.path.insert(0, "" if code is not None else os.path.dirname(os.path.abspath(program)))  # as `python` does
        multiprocessing.set_start_method("fork", force=True)  # Linux's default, which a plain run would have
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        status = 0
        try:
            with recording(main=program if code is None else "<string>") as warned:
                if code is None:
                    runpy.run_path(program, run_name="__main__")
                else:
                    exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})
        except SystemExit as exit_:
            # as the interpreter exits: a number as it is, None as 0, anything else (a message) as 1
            status = int(exit_.code) if isinstance(exit_.code, int) else int(exit_.code is not None)
            if isinstance(exit_.code, str):
                print(exit_.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        out.seek(0)
        err.seek(0)
        return Run(f"python {' '.join(sys.argv)}", status, out.read().decode(errors="replace"),
                   err.read().decode(errors="replace"), tuple(warned))


def _in_own_interpreter(snippet: str, args: list[str]) -> Run:
    command = [sys.executable, snippet, *args]
    with tempfile.TemporaryDirectory() as tmp:
        command = [a.replace("{tmp}", tmp) for a in command]
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    return Run(" ".join(command), done.returncode, done.stdout, done.stderr, tuple(from_stderr(done.stderr)))


@functools.cache
def _pool() -> ProcessPoolExecutor:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["torch", "torchvision"])
    os.chdir(REPO)  # the forkserver starts here: snippets use paths relative to the repository root
    return ProcessPoolExecutor(2, mp_context=context, max_tasks_per_child=1)


def _once(snippet: str, args: list[str]) -> Run:
    """The program's one run in this test run: made here, in a pool's process, unless another worker has made it."""
    run = _in_own_interpreter if snippet in OWN_INTERPRETER else _in_forked_process
    return run_share.once(f"snippet {snippet} {args}", lambda: run(snippet, args))


@functools.cache
def run_snippet(snippet: str, *args: str) -> Future:
    """The run of snippet (a path relative to the repository) with args (ARGS' by default), started on first
    request and shared."""
    future = _pool().submit(_once, snippet, list(args) or ARGS.get(snippet, []))
    for listener in [] if args else run_listeners:
        future.add_done_callback(
            lambda done, tell=listener: done.cancelled() or done.exception() or tell(snippet, done.result()))
    return future


def run_code(code: str, *args: str) -> Run:
    """`python -c code args...`, in a process of its own that has imported torch and nothing else yet."""
    return _pool().submit(_in_forked_process, "-c", list(args), code).result(timeout=600)
