from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docs_pages import REPO


def mkdocs_build(dest: Path, cwd: Path = REPO, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of the project in cwd into dest, as CI and the deploy workflow run it."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [*prefix, sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site, built once per test run with --strict; tests that read HTML share it."""
    dest = tmp_path_factory.mktemp("site")
    result = mkdocs_build(dest)
    assert result.returncode == 0, result.stderr[-4000:]
    return dest


def copy_of_repo(dest: Path) -> Path:
    """A scratch copy of the project (no venv, git or data) for tests that break things on purpose."""
    skip = {".venv", "site", ".git", "data", ".mnist", "test-artifacts", "node_modules"}
    shutil.copytree(REPO, dest, ignore=lambda d, names: skip.intersection(names) if Path(d) == REPO else ())
    return dest
