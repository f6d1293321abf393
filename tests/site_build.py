"""Building the site from the tests: as CI builds it, with the network cut, or from a broken copy."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from site_pages import REPO


def offline_prefix() -> list[str]:
    """A command prefix that runs its command without any network, where this machine allows it."""
    for prefix in (["unshare", "--net"], ["unshare", "--map-root-user", "--net"]):
        if shutil.which(prefix[0]) and subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return []


def start_mkdocs_build(dest: Path, cwd: Path = REPO, prefix: tuple[str, ...] = ()) -> subprocess.Popen:
    """`mkdocs build --strict` of the project in cwd into dest, as CI and the deploy workflow run it, started."""
    return subprocess.Popen(
        [*prefix, sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(dest)],
        cwd=cwd, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )


def finished(process: subprocess.Popen) -> subprocess.CompletedProcess:
    """A started process (output captured as text), waited for."""
    stdout, stderr = process.communicate(timeout=600)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def mkdocs_build(dest: Path, cwd: Path = REPO, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """The build of start_mkdocs_build, waited for."""
    return finished(start_mkdocs_build(dest, cwd, prefix))


def copy_of_repo(dest: Path) -> Path:
    """A scratch copy of the project (no venv, git or data) for tests that break things on purpose."""
    skip = {"site", ".git", "data", ".mnist", "test-artifacts", "node_modules", ".gpu-carry"}
    shutil.copytree(REPO, dest, ignore=lambda d, names: {n for n in names if n in skip or n.startswith(".venv")}
                    if Path(d) == REPO else ())
    return dest
