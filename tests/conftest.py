"""The built site, shared by every test that reads its HTML."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from site_build import finished, offline_prefix, start_mkdocs_build

_build: dict = {}  # this run's one build: its folder and its process


def _start_build() -> None:
    dest = Path(tempfile.mkdtemp(prefix="built-site-"))
    _build.update(dest=dest, process=start_mkdocs_build(dest, prefix=tuple(offline_prefix())))


def pytest_sessionstart(session):
    # a build keeps one core busy for seconds: a run of the whole suite (the testpaths) reads the site, so it
    # starts now, beside the collection, which uses one core
    if session.config.args_source == pytest.Config.ArgsSource.TESTPATHS and not session.config.option.collectonly:
        _start_build()


def pytest_collection_finish(session):
    # any other run starts it once the tests are known, if one of them reads the site
    if not _build and not session.config.option.collectonly and any(
        "built_site" in getattr(item, "fixturenames", ()) for item in session.items
    ):
        _start_build()


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The site, built once per test run with --strict and, where the machine allows, with the network cut
    (tests/test_site.py checks which); every test that reads HTML shares it."""
    if not _build:
        _start_build()
    build = finished(_build["process"])
    assert build.returncode == 0, build.stderr[-4000:]
    return _build["dest"]


def pytest_unconfigure(config):
    if _build:
        _build["process"].kill()  # a run stopped early may leave it going
        shutil.rmtree(_build["dest"], ignore_errors=True)
