"""The built site, shared by every test that reads its HTML."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_build import mkdocs_build, offline_prefix


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site, built once per test run with --strict and, where the machine allows, with the network cut
    (tests/test_site.py checks which); every test that reads HTML shares it."""
    dest = tmp_path_factory.mktemp("site")
    result = mkdocs_build(dest, prefix=tuple(offline_prefix()))
    assert result.returncode == 0, result.stderr[-4000:]
    return dest
