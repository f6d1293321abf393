"""Every snippet module runs on its own, as a reader who copied it would run it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from docs_pages import REPO, SNIPPETS, snippets_needing_gpu

# Command-line programs get the arguments a quick real run needs; "{tmp}" becomes a scratch folder.
SCRIPT_ARGS = {
    "snippets/mnist/train.py": ["--epochs", "1", "--pipeline", "resident", "--no-download"],
    "snippets/mnist/bench.py": ["--pipelines", "resident", "--epochs", "1", "--out", "{tmp}"],
}
# Programs meant for a launcher run under it, as their page shows.
LAUNCHERS = {
    "snippets/multi_gpu/ddp_train.py": [sys.executable, "-m", "torch.distributed.run", "--standalone",
                                        "--nproc-per-node=2"],
}


def _params():
    needs = snippets_needing_gpu()
    for path in sorted(SNIPPETS.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        marks = [getattr(pytest.mark, m) for m in sorted(needs.get(rel, ()))]
        yield pytest.param(rel, marks=marks, id=rel)


@pytest.mark.parametrize("snippet", list(_params()))
def test_snippet_runs_as_a_script(snippet, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in SCRIPT_ARGS.get(snippet, [])]
    command = [*LAUNCHERS.get(snippet, [sys.executable]), snippet, *args]
    env = {**os.environ, "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])}
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
