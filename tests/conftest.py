"""The built site, shared by every test that reads its HTML, in every process of the run."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

import run_share
from site_build import finished, notebooks_rendered, offline_prefix, start_mkdocs_build

_build: dict = {}  # the build, in the process that started it: its process and the thread that records its end


def _paths() -> tuple[Path, Path, Path]:
    """The site's folder, the marker saying a process has started building it, and the build's outcome."""
    shared = run_share.folder()
    return shared / "built-site", shared / "built-site.started", shared / "built-site.json"


def _record(process, outcome: Path) -> None:
    build = finished(process)
    partial = outcome.with_suffix(".partial")
    partial.write_text(json.dumps({"returncode": build.returncode, "stderr": build.stderr[-4000:]}))
    os.replace(partial, outcome)  # whoever polls sees all of it or nothing


def _start_build() -> None:
    """Start the run's one build, unless a process of this run has."""
    dest, started, outcome = _paths()
    with run_share.lock("built-site"):
        if started.exists():
            return
        started.touch()
    process = start_mkdocs_build(dest, prefix=tuple(offline_prefix()), env=notebooks_rendered())
    thread = threading.Thread(target=_record, args=(process, outcome), name="site-build", daemon=True)
    thread.start()
    _build.update(process=process, thread=thread)


def pytest_sessionstart(session):
    # a build keeps one core busy for a minute: a run of the whole suite (the testpaths) reads the site, and so
    # does almost any run split over pytest-xdist's workers, so the run's first process starts it now, beside the
    # collection (an xdist worker that leaves early cannot strand the other waiting for it)
    config = session.config
    whole_suite = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    xdist_controller = config.pluginmanager.hasplugin("dsession")
    # the GPU job's run (tests/gpu_job_plugin.py) leaves out every test that reads the site
    gpu_job = config.pluginmanager.hasplugin("gpu_job_plugin")
    if (whole_suite or xdist_controller) and not config.option.collectonly and not gpu_job:
        _start_build()


def pytest_collection_finish(session):
    # any other run starts it once the tests are known, if one of them reads the site
    if not session.config.option.collectonly and any(
        "built_site" in getattr(item, "fixturenames", ()) for item in session.items
    ):
        _start_build()


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The site, built once per test run with --strict and, where the machine allows, with the network cut
    (tests/test_site.py checks which); every test that reads HTML shares it."""
    _start_build()
    dest, _, outcome = _paths()
    deadline = time.monotonic() + 900
    while not outcome.exists():
        assert time.monotonic() < deadline, "the site's build did not finish in 15 minutes"
        time.sleep(0.2)
    build = json.loads(outcome.read_text())
    assert build["returncode"] == 0, build["stderr"]
    return dest


def pytest_unconfigure(config):
    if _build:
        _build["process"].kill()  # a run stopped early may leave it going
        _build["thread"].join(timeout=10)
