"""Warnings are findings (tests/block_warnings.py): each block's one run records its warnings, and a block whose
warning says its code is outdated fails unless its page shows and names it. Synthetic code and pages only."""

from __future__ import annotations

import warnings
from pathlib import Path

import _pytest
import pytest
import torch

from block_warnings import Warned, counts, recording, report, unexplained
from site_pages import REPO
from snippet_runs import run_code

TORCH_FILE = str(Path(torch.__file__).parent / "cuda/amp/grad_scaler.py")
OLD_AMP = "import torch\ntorch.cuda.amp.GradScaler()\n"  # a FutureWarning in 2.15.0, raised at the caller's line


def test_recording_sees_what_filters_and_a_snippets_own_catch_would_hide():
    with recording() as found:
        with warnings.catch_warnings(record=True) as caught:  # as a snippet that prints its warnings does
            warnings.simplefilter("always")
            warnings.warn("old", DeprecationWarning, stacklevel=1)
        for _ in range(2):  # python shows a warning once per place; a run records each
            warnings.warn("twice", UserWarning, stacklevel=1)
        warnings.warn("hidden by default", PendingDeprecationWarning, stacklevel=1)
        with warnings.catch_warnings(record=True) as plain:  # a snippet's catch without a filter of its own
            for _ in range(2):
                warnings.warn("once per place", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["old"]  # the snippet still gets its own
    assert [str(w.message) for w in plain] == ["once per place"]  # as python's filters, not ours, let it through
    assert [(w.category, w.message) for w in found] == [
        ("DeprecationWarning", "old"), ("UserWarning", "twice"), ("UserWarning", "twice"),
        ("PendingDeprecationWarning", "hidden by default"), ("UserWarning", "once per place"),
        ("UserWarning", "once per place")]


def test_a_program_records_its_warnings_and_prints_only_what_a_readers_run_prints():
    code = (OLD_AMP + "import warnings\n"
            "library = {}\n"  # a DeprecationWarning raised outside __main__: a reader's run does not print it
            "exec(compile(\"import warnings\\nwarnings.warn('library detail', DeprecationWarning)\", 'lib.py',"
            " 'exec'), library)\n"
            "for _ in range(3):\n    warnings.warn('again', UserWarning, stacklevel=1)\n")
    run = run_code(code)
    assert run.returncode == 0, run.stderr
    assert [(w.category, w.message.partition(".")[0]) for w in run.warnings] == [
        ("FutureWarning", "`torch"), ("UserWarning", "torch"),
        ("DeprecationWarning", "library detail"), *[("UserWarning", "again")] * 3]
    assert run.stderr.count("FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated.") == 1
    assert "library detail" not in run.stderr
    assert run.stderr.count("UserWarning: again") == 1


@pytest.mark.parametrize(("warned", "counted"), [
    (Warned("FutureWarning", "`torch.cuda.amp.GradScaler(args...)` is deprecated.", "<string>", 2), True),
    (Warned("DeprecationWarning", "x is deprecated", TORCH_FILE, 1), True),
    (Warned("PendingDeprecationWarning", "x", "snippets/tensors/move.py", 1), True),
    (Warned("UserWarning", "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1", TORCH_FILE, 1), True),
    (Warned("UserWarning", "The torch.cuda.*DtypeTensor constructors are no longer recommended.", TORCH_FILE, 1),
     True),
    (Warned("UserWarning", "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.", TORCH_FILE, 1), False),
    (Warned("RuntimeWarning", "x is deprecated", TORCH_FILE, 1), False),
    (Warned("DeprecationWarning", "x is deprecated", str(Path(_pytest.__file__).parent / "x.py"),
            1), False),
    (Warned("DeprecationWarning", "x is deprecated", str(REPO / "tests/snippet_runs.py"), 1), False),
])
def test_which_warnings_count(warned, counted):
    assert counts(warned) is counted


PAGE = """# A page

## Old code { #old }

Old code still runs, with a `FutureWarning` that names the new form:

```python
--8<-- "snippets/x/old.py"
```

<!--pytest-codeblocks:expected-output-->
```text
`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use
`torch.amp.GradScaler('cuda', args...)` instead.
```

```python
--8<-- "snippets/x/next.py"
```
"""


def _warned_by_old_amp() -> list[Warned]:
    with recording() as found:
        exec(OLD_AMP, {})
    return found


def _check(page: str) -> list[Warned]:
    lines = page.splitlines()
    fences = [n for n, line in enumerate(lines, 1) if line == "```python"]
    return unexplained(lines, fences[0], fences[1], _warned_by_old_amp())


def test_a_shown_and_named_warning_passes():
    assert _check(PAGE) == []


@pytest.mark.parametrize("page", [
    PAGE.replace("with a `FutureWarning` that", "with a warning that"),  # shown, not named
    PAGE.replace("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use\n", ""),  # named, not shown
    PAGE.replace('```python\n--8<-- "snippets/x/next.py"\n```\n', "")
        .replace('```python\n--8<-- "snippets/x/old.py"\n```\n',
                 '```python\n--8<-- "snippets/x/old.py"\n```\n\n```python\n--8<-- "snippets/x/next.py"\n```\n'),
    PAGE.replace('names the new form:\n\n', 'names the new form:\n\n## Next { #next }\n\n'),
], ids=["not named", "not shown", "shown after the next block", "named in another section"])
def test_a_warning_the_page_does_not_show_and_name_fails_naming_page_block_and_warning(page):
    missing = _check(page)
    assert [(w.category, w.message.partition(". ")[0]) for w in missing] == [
        ("FutureWarning", "`torch.cuda.amp.GradScaler(args...)` is deprecated")]
    message = report("en/old.md block 1 [snippets/x/old.py]", missing)
    assert message.startswith("en/old.md block 1 [snippets/x/old.py] raised 1 warning(s)")
    assert "FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated." in message
