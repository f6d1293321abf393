"""Warnings are findings: the warnings each page block's one run raised, and the check that its page shows and names
every warning that says the code is outdated (CONTRIBUTING.md, "Code on a page").

Glue because a run must record its warnings as it goes (no block runs twice): recording() wraps
warnings._showwarnmsg, which every warning that passes the filters reaches, also inside a snippet's own
`warnings.catch_warnings(record=True)`, so a warning that the snippet catches and prints counts as well.
Not seen: a warning that torch gives once per process (TORCH_WARN_ONCE) when an earlier block in the same process
gave it (blocks run with exec share the test process; a program gets a fresh one), and warnings raised in a
program's own child processes (DataLoader workers, torchrun's workers under a shell block print theirs to stderr).
"""

from __future__ import annotations

import builtins
import contextlib
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from site_pages import REPO


@dataclass(frozen=True)
class Warned:
    category: str  # the class's name, e.g. FutureWarning
    message: str  # its first line
    filename: str  # where it was raised (the frame its stacklevel points at)
    lineno: int

    def __str__(self) -> str:
        return f"{self.category}: {self.message} ({self.where})"

    @property
    def where(self) -> str:
        path = Path(self.filename)
        return f"{path.relative_to(REPO) if path.is_relative_to(REPO) else self.filename}:{self.lineno}"


def _warned(message: warnings.WarningMessage) -> Warned:
    first_line = (str(message.message).splitlines() or [""])[0]
    return Warned(message.category.__name__, first_line, str(message.filename), int(message.lineno or 0))


def _matches(pattern, text: str) -> bool:
    """As python's _warnings checks a filter's message or module: None matches all, a str (the default filters'
    `__main__`) only itself, a compiled pattern from its start."""
    return pattern is None or (pattern == text if isinstance(pattern, str) else bool(pattern.match(text)))


def _first_match(message: warnings.WarningMessage, filters: list, main: str | None) -> tuple | None:
    """The filter that decides the warning, as python picks it (main: the program's file, for the `__main__` rule)."""
    module = "__main__" if main and message.filename == main else message.filename.removesuffix(".py")
    for entry in filters:
        _, text, category, mod, lineno = entry
        if (_matches(text, str(message.message)) and issubclass(message.category, category)
                and _matches(mod, module) and lineno in (0, message.lineno)):
            return entry
    return None


@contextlib.contextmanager
def recording(main: str | None = None) -> Iterator[list[Warned]]:
    """Every warning raised inside, in order: a filter of its own in front (simplefilter("always")) lets none be
    hidden or shown only once. Past the record, each warning goes on as if that filter were not there (to stderr, or
    to a snippet's own catch_warnings log), so what a program prints stays what a reader's run prints (tests compare
    its stderr); one that a snippet's own filter, in front of ours, let through goes on unchanged."""
    found: list[Warned] = []
    shown_once: set[tuple] = set()
    show = warnings._showwarnmsg

    def record(message: warnings.WarningMessage) -> None:
        found.append(_warned(message))
        filters = list(warnings.filters)
        if not any(entry is ours for entry in filters) or _first_match(message, filters, main) is not ours:
            show(message)
            return
        behind = filters[[id(e) for e in filters].index(id(ours)) + 1 :]
        action = (_first_match(message, behind, main) or (warnings.defaultaction,))[0]
        text = str(message.message)
        key = {"once": (text, message.category), "module": (text, message.category, message.filename)}.get(
            action, (text, message.category, message.filename, message.lineno))
        if action == "always" or (action in {"default", "module", "once"} and key not in shown_once):
            shown_once.add(key)
            show(message)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        ours = warnings.filters[0]
        warnings._showwarnmsg = record
        try:
            yield found
        finally:
            warnings._showwarnmsg = show


# A shell block's program prints its warnings as python does: "file:line: Category: message".
SHOWN = re.compile(r"^(?P<file>\S.*?):(?P<line>\d+): (?P<category>[A-Za-z]\w*Warning): (?P<message>.*)$", re.M)


def from_stderr(stderr: str) -> list[Warned]:
    return [Warned(m["category"], m["message"], m["file"], int(m["line"])) for m in SHOWN.finditer(stderr)]


# The rule: a warning counts when it says the code is outdated, i.e. its category is DeprecationWarning,
# PendingDeprecationWarning or FutureWarning (or a subclass), or it is a UserWarning (torch's usual category,
# TORCH_WARN included) whose message says so (OUTDATED), and it was raised in torch or torchvision or in the page's
# own code (a snippet file, or "<string>" for a block run with exec), where a stacklevel points at the caller;
# warnings raised in anything else (pytest, its plugins, the tests' helpers, other libraries) do not count.
OUTDATED = re.compile(r"deprecat|no longer (recommended|supported)|will be removed|will (change|raise|error)"
                      r"|in a future (release|version)|(is|are) (now )?legacy", re.I)
PAGE_CODE = ("<string>", str(REPO / "snippets") + "/", "snippets/")


def _packages() -> tuple[str, ...]:
    import torch
    import torchvision

    return tuple(str(Path(m.__file__).parent) + "/" for m in (torch, torchvision))


def counts(warned: Warned) -> bool:
    category = getattr(builtins, warned.category, None)
    if not (isinstance(category, type) and issubclass(category, Warning)):
        return False
    outdated = issubclass(category, DeprecationWarning | PendingDeprecationWarning | FutureWarning) or (
        issubclass(category, UserWarning) and bool(OUTDATED.search(warned.message)))
    return outdated and warned.filename.startswith(PAGE_CODE + _packages())


# ---- the page's side: shown in an output fence after the block, named in its section's prose ------------------------

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^#{1,6} ")


def first_sentence(message: str) -> str:
    """What a page must show of a message: up to its first '. ' (torch appends '(Triggered internally at ...)')."""
    return message.partition(". ")[0].strip()


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def unexplained(lines: list[str], fence_line: int, next_fence_line: int | None, found: list[Warned]) -> list[Warned]:
    """The counted warnings of the block whose fence opens at line fence_line (1-based) of a page (lines) that the
    page does not show and name: shown means the first sentence of its message is in a fence between the block and
    the next runnable one (an expected output, or a run's recorded text), whitespace aside; named means the prose of
    the block's section (between the headings around it, fences left out) has its category in backticks."""
    inside, fenced_lines = False, set()
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            inside = not inside
            fenced_lines.add(number)
        elif inside:
            fenced_lines.add(number)
    headings = [n for n, line in enumerate(lines, 1) if n not in fenced_lines and HEADING.match(line)]
    start = max([n for n in headings if n < fence_line], default=0)
    stop = min([n for n in headings if n > fence_line], default=len(lines) + 1)
    end = min(stop, next_fence_line or len(lines) + 1)
    shown = _squeeze("\n".join(lines[n - 1] for n in range(fence_line + 1, end)
                                if n in fenced_lines and not FENCE.match(lines[n - 1])))
    named = "\n".join(lines[n - 1] for n in range(start + 1, stop) if n not in fenced_lines)
    return [w for w in dict.fromkeys(w for w in found if counts(w))
            if _squeeze(first_sentence(w.message)) not in shown or f"`{w.category}`" not in named]


def report(where: str, missing: list[Warned]) -> str:
    return (f"{where} raised {len(missing)} warning(s) its page does not show in an output fence after the block and "
            "name (the category in backticks) in the section's prose (CONTRIBUTING.md, 'Code on a page'):\n"
            + "\n".join(f"  {w}" for w in missing))

