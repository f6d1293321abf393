"""requirements.txt and constraints.txt install anywhere the package registry is reachable.

A pin that names a file, a URL or a VCS reference works only on the machine that wrote it (a fresh
clone once failed at install because of one), so every line must be a plain `name==version`.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from site_pages import REPO

PIN_FILES = ("requirements.txt", "constraints.txt", "requirements-site.txt")


def pin_problem(line: str) -> str | None:
    """Why `line` is not a registry pin, or None when it is one."""
    try:
        req = Requirement(line)
    except InvalidRequirement as error:
        return f"not a requirement ({error})"
    if req.url:
        return f"direct reference `@ {req.url}`: only registry pins install everywhere"
    specs = list(req.specifier)
    if len(specs) != 1 or specs[0].operator != "==" or "*" in specs[0].version:
        return f"`{req.specifier or 'no version'}` is not an exact `==` pin"
    if "+" in specs[0].version:
        return f"local version `{specs[0].version}`: the package registry has no such release"
    if req.marker is not None and not req.marker.evaluate():
        return f"marker `{req.marker}` is false here (Python 3.11, Linux): the pin would install nothing"
    return None


def pin_problems(path: Path) -> list[str]:
    problems = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        why = pin_problem(line)
        if why:
            problems.append(f"{path.name}:{number}: {why}: {raw.strip()}")
    return problems


@pytest.mark.parametrize("name", PIN_FILES)
def test_every_line_is_a_registry_pin(name):
    assert not pin_problems(REPO / name), "\n".join(pin_problems(REPO / name))


@pytest.mark.parametrize(("line", "reason"), [
    ("pkg @ file:///tmp/pkg-1.0-py3-none-any.whl", "direct reference"),
    ("pkg @ git+https://example.invalid/pkg.git", "direct reference"),
    ("/tmp/pkg-1.0-py3-none-any.whl", "not a requirement"),
    ("-e .", "not a requirement"),
    ("-c constraints.txt", "not a requirement"),
    ("pkg>=1.0", "not an exact"),
    ("pkg==1.*", "not an exact"),
    ("pkg", "not an exact"),
    ("torch==2.14.1+cpu", "local version"),
    ('tqdm==4.70.1; python_version < "3"', "marker"),
])
def test_anything_but_a_pin_is_named_with_its_reason(line, reason):
    assert reason in (pin_problem(line) or "")


@pytest.mark.parametrize("line", ["torch==2.14.1", "Jinja2==3.1.6", "pkg[extra]==1.0 ; python_version >= '3.11'"])
def test_pins_with_extras_and_markers_are_accepted(line):
    assert pin_problem(line) is None


def pins(name: str) -> dict[str, str]:
    """Package name (normalised) -> pinned version, for one pin file."""
    found = {}
    for raw in (REPO / name).read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            req = Requirement(line)
            found[canonicalize_name(req.name)] = next(iter(req.specifier)).version
    return found


@pytest.mark.parametrize("name", PIN_FILES)
def test_every_pin_is_the_version_these_tests_run_with(name):
    # a pin edited by hand (or an environment left over from an older pin) would otherwise pass unnoticed
    wrong = {pkg: (pinned, installed) for pkg, pinned in pins(name).items()
             if (installed := _installed(pkg)) != pinned}
    assert not wrong, f"{name}: pinned vs installed: {wrong}"


def test_the_site_pins_match_the_full_install():
    # `make serve` installs requirements-site.txt alone, `make test` requirements.txt: one site, one set of versions
    full = pins("requirements.txt") | pins("constraints.txt")
    differ = {pkg: (pinned, full.get(pkg)) for pkg, pinned in pins("requirements-site.txt").items()
              if full.get(pkg) != pinned}
    assert not differ, f"requirements-site.txt vs requirements.txt/constraints.txt: {differ}"


def _installed(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def test_no_test_is_retried_or_tolerated_flaky():
    # A test that fails one time in three is a bug readers meet (issue 21): no rerun plugin, no flaky marks.
    assert "pytest-rerunfailures" not in pins("requirements.txt") | pins("constraints.txt")
    assert _installed("pytest-rerunfailures") is None
    places = [*REPO.glob("tests/**/*.py"), *REPO.glob("docs/*/*.md"), REPO / "pyproject.toml"]
    marked = [p.relative_to(REPO).as_posix() for p in places
              if re.search(r"mark\.flaky|reruns\s*=|--reruns", p.read_text(encoding="utf-8"))
              and p.name != "test_requirements.py"]
    assert not marked, marked
