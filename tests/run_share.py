"""A pytest plugin: what the processes of one test run share, a scratch folder and results computed once.

`make test` runs the tests in two pytest-xdist workers, each a process of its own, so a result cached in one
(functools.cache) is unknown to the other. A result that several tests read (a snippet's run as a program, the
site's build) is computed by the first process that asks, under a lock, and written here for the others: each
piece of code still runs once per test run. Glue because xdist has no cross-worker cache; filelock does the locking.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from filelock import FileLock

T = TypeVar("T")
# set by the run's first process (the xdist controller, or the only process) and inherited by every process it starts
FOLDER_VARIABLE = "SITE_TESTS_SHARED"
_OWNER = pytest.StashKey[bool]()


def pytest_configure(config):
    # this run's folder, unless a process above this one made it (an xdist worker inherits the controller's)
    if FOLDER_VARIABLE not in os.environ:
        os.environ[FOLDER_VARIABLE] = tempfile.mkdtemp(prefix="site-tests-shared-")
        config.stash[_OWNER] = True


def pytest_unconfigure(config):
    if config.stash.get(_OWNER, False):
        shutil.rmtree(os.environ.pop(FOLDER_VARIABLE), ignore_errors=True)


def folder() -> Path:
    return Path(os.environ[FOLDER_VARIABLE])


def lock(name: str) -> FileLock:
    return FileLock(folder() / f"{name}.lock")


def once(key: str, compute: Callable[[], T]) -> T:
    """compute()'s value for key, computed by the first process of the run that asks; the others wait, then read it.
    A compute() that raises stores nothing: the next process to ask computes again (and meets the same error)."""
    name = hashlib.sha256(key.encode()).hexdigest()[:40]
    stored = folder() / f"{name}.pickle"
    with lock(name):
        if stored.exists():
            return pickle.loads(stored.read_bytes())
        value = compute()
        stored.write_bytes(pickle.dumps(value))
        return value


# files whose parametrized tests are each a unit of their own, case by case: every case starts its own processes
# (torchrun jobs) and shares nothing with the others; their other tests stay together as one unit
CASE_BY_CASE = {"tests/test_ddp_training.py", "tests/test_ddp_checkpoints.py", "tests/test_fsdp.py",
                "tests/test_distributed_debugging.py"}


def work_unit(nodeid: str) -> str:
    """The tests that one xdist worker runs together, because they share what a process caches: a page's blocks in
    every language (a block runs once for all its copies), one page's checks in the browser (loaded once for all of
    them), one language's searches (its home page, loaded once), and otherwise a test file (its module fixtures)."""
    path, _, rest = nodeid.partition("::")
    parts = path.split("/")
    case = rest.partition("[")[2].removesuffix("]")
    if len(parts) == 3 and parts[0] == "docs" and parts[2].endswith(".md"):
        return f"docs/*/{parts[2]}"
    if path == "tests/test_browser_pages.py" and case:  # a page's URL path, e.g. en/devices
        return f"{path}[{case}]"
    if path == "tests/test_browser_search.py" and case:  # a language, or lang:query
        return f"{path}[{case.partition(':')[0]}]"
    if path in CASE_BY_CASE and case:
        return nodeid
    return path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    # `--dist loadscope` with this run's work units instead of xdist's (a module or a class)
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class WorkUnitScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return WorkUnitScheduling(config, log)
