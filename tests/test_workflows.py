"""The GitHub workflows: linted by actionlint and zizmor, and the GPU one never runs fork code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from site_pages import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def test_actionlint_is_clean():
    result = subprocess.run([_bin("actionlint"), *map(str, WORKFLOWS)], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_is_clean():
    result = subprocess.run([_bin("zizmor"), "--offline", "--no-progress", ".github/workflows"], cwd=REPO,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _load(name: str) -> dict:
    # YAML 1.1 reads the key `on` as True
    data = yaml.safe_load((REPO / ".github" / "workflows" / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))
    return data


def test_gpu_workflow_never_runs_on_pull_requests():
    gpu = _load("gpu.yml")
    assert set(gpu["on"]) == {"push", "schedule", "workflow_dispatch"}
    assert gpu["jobs"]["measure"]["runs-on"] == ["self-hosted", "gpu"]


def test_workflows_grant_nothing_by_default():
    for workflow in WORKFLOWS:
        data = _load(workflow.name)
        assert data["permissions"] == {}, workflow.name
        for name, job in data["jobs"].items():
            assert "permissions" in job, f"{workflow.name}: job {name} must state its permissions"
