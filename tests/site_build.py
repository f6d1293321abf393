"""Building the site from the tests: as CI builds it, with the network cut, or from a broken copy."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import run_share
from site_pages import REPO


def offline_prefix() -> list[str]:
    """A command prefix that runs its command without any network, where this machine allows it."""
    for prefix in (["unshare", "--net"], ["unshare", "--map-root-user", "--net"]):
        if shutil.which(prefix[0]) and subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return []


def notebook_cache(folder: Path) -> dict[str, str]:
    """The environment that has a build keep its rendered notebooks in folder (mkdocs.yml, mkdocs-jupyter's cache)
    and take them from there when a notebook's bytes are the same: the run's later builds of the same pages render
    none again. mkdocs-jupyter writes its files without a lock and deletes those a build did not use, so only builds
    of the same notebooks share a folder, one after the other."""
    return {"NOTEBOOK_CACHE": "true", "NOTEBOOK_CACHE_DIR": str(folder)}


def notebooks_rendered() -> dict[str, str]:
    """notebook_cache of this test run (tests/run_share.py): the run's site build (conftest.built_site) fills it, a
    later build of the same pages, started once that one is done, takes from it."""
    return notebook_cache(run_share.folder() / "rendered-notebooks")


def start_mkdocs_build(dest: Path, cwd: Path = REPO, prefix: tuple[str, ...] = (),
                       env: dict[str, str] | None = None) -> subprocess.Popen:
    """`mkdocs build --strict` of the project in cwd into dest, as CI and the deploy workflow run it, started; env:
    more environment variables."""
    return subprocess.Popen(
        [*prefix, sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
        cwd=cwd, env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )


def finished(process: subprocess.Popen) -> subprocess.CompletedProcess:
    """A started process (output captured as text), waited for."""
    stdout, stderr = process.communicate(timeout=600)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def mkdocs_build(dest: Path, cwd: Path = REPO, prefix: tuple[str, ...] = (),
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The build of start_mkdocs_build, waited for."""
    return finished(start_mkdocs_build(dest, cwd, prefix, env))


def copy_of_repo(dest: Path) -> Path:
    """A scratch copy of the project (no venv, git or data) for tests that break things on purpose."""
    skip = {"site", ".git", "data", ".mnist", "test-artifacts", "node_modules", ".gpu-carry"}
    shutil.copytree(REPO, dest, ignore=lambda d, names: {n for n in names if n in skip or n.startswith(".venv")}
                    if Path(d) == REPO else ())
    return dest
