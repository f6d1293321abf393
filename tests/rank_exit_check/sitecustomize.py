"""A check on every torchrun rank that a page's shell block starts in the tests: once the script is done, no Gloo
thread may be left (tests/codeblocks_plugin.py puts this folder on PYTHONPATH with GLOO_EXIT_CHECK=1 set, so Python
imports it at startup, and the page's own run of the script is the one checked).

The cause of the teardown abort (issue 21, and the FSDP abort a CI run met): when something still holds the process
group, destroy_process_group() cannot free it, and Gloo's threads (pt_gloo_runloop, gloo_tcp_loop) run on into
interpreter shutdown. There, one of them freeing the last collective's tensors needs the interpreter, is stopped
with pthread_exit inside a C++ destructor, and the process aborts with "terminate called without an active
exception" (a core dump's backtrace: ProcessGroupGloo::runLoop -> ~AsyncBarrierWork ->
~AsyncAllgatherCoalescedWork -> decref -> take_gil -> PyThread_exit_thread). How often depends on the machine's
load; whether the threads are gone does not: after main() only the main thread may talk Gloo.

Registered first, the handler runs last of the exit handlers (after the script and every library's own), before the
interpreter tears its modules down: what it sees is what shutdown will meet.
"""

import atexit
import os
import sys
import time


def _thread_names() -> list[str]:
    return sorted(open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task"))


def _no_gloo_thread_left() -> None:
    deadline = time.monotonic() + 2  # a thread that is already ending gets a moment
    while (left := [n for n in _thread_names() if "gloo" in n]) and time.monotonic() < deadline:
        time.sleep(0.05)
    if left:
        # One write(2) for the line and its newline: print() writes them apart, and two ranks sharing the pipe
        # interleaved as "...']rank 0: ..." in a CI run (a pipe keeps a write of up to 4,096 bytes whole).
        os.write(2, f"rank {os.environ['RANK']}: Gloo threads outlive the script: {left}\n".encode())
        os._exit(3)  # before shutdown meets them


if os.environ.get("GLOO_EXIT_CHECK") and "RANK" in os.environ and sys.platform.startswith("linux"):
    atexit.register(_no_gloo_thread_left)
