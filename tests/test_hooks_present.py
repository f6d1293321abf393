"""Hooks compute, templates present (issue 20, item 8): no hook in docs/hooks/ holds words a reader sees or the
Markdown that lays them out. Their words live in docs/data/text/<lang>/<hook>.yml and their layout in the Jinja
templates under docs/overrides/<hook>/, which site_pages.templates() loads; a hook computes plain data for them."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from site_pages import DOCS, REPO

HOOKS = DOCS / "hooks"
# pending: issue 26 / 25 helpers -- being rewritten to this rule
PENDING = {"notebooks.py", "search_index.py"}

# what gives away reader-visible text or its layout in a string literal (an f-string is read with {} for each of its
# values); docstrings, which describe the output, regular expressions, which read Markdown, and the messages of
# raised errors, which are the build's to its author, are not looked at
WORD = r"(?:\{\}|[^\W\d_])"  # a letter, or a value of an f-string
PRESENTATION = {
    "Chinese words": re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]"),
    "full-width punctuation": re.compile(r"[\u3000-\u303f\uff00-\uffef]"),
    "a Markdown table row": re.compile(r"(?:^|\n)[ \t]*\|[ \t:-]|[ \t]\|[ \t]*(?:$|\n)|\|---"),
    "an admonition": re.compile(rf"(?:^|\n)[ \t]*(?:\?\?\?\+?|!!!)[ \t]+{WORD}"),
    "bold or italic Markdown": re.compile(rf"\*\*{WORD}|{WORD}\*\*|(?:^|[\s(\[])\*{WORD}[^*\n]*\*(?!\*)"),
    "a Markdown link": re.compile(r"\]\(|\]\[|(?:^|[ \t])<https?:"),
    "a Markdown heading": re.compile(rf"(?:^|\n)#{{1,6}}[ \t]+{WORD}"),
    "a Markdown list item": re.compile(r"(?:^|\n)[ \t]*(?:[-+]|\d+\.)[ \t]"),
    "an HTML element of a page": re.compile(r"<(?:details|summary|div|span|p|br|a|table|tr|td|ul|li|figure)\b"),
    "an attribute list": re.compile(r"\{[ \t]*[#.][\w{}-]"),
}
REGEX_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}

# documented exceptions: (hook file, the function or module-level name holding the literal) -> why it is no
# reader-visible text
EXCEPTIONS: dict[tuple[str, str], str] = {}


def _literals(tree: ast.Module):
    """(the enclosing function's or module-level assignment's name, the literal as its text reads) for each string
    literal that is not a docstring, a regular expression (the pattern of a `re.` call) or in a `raise`."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    patterns = {
        id(node.args[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.func.attr in REGEX_CALLS
    }

    def visit(node, owner):
        if isinstance(node, ast.Raise) or id(node) in docstrings | patterns:
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            owner = node.name
        elif isinstance(node, ast.Assign | ast.AnnAssign) and owner is None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            owner = next((t.id for t in targets if isinstance(t, ast.Name)), None)
        if isinstance(node, ast.JoinedStr):
            yield owner, "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            return
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield owner, node.value
        for child in ast.iter_child_nodes(node):
            yield from visit(child, owner)

    yield from visit(tree, None)


def presentation_in(path: Path, name: str | None = None) -> list[str]:
    """Each string literal of the hook at path (named name, by default its own) that holds reader-visible text or its
    layout, with what gives it away: "verification.py, render: an admonition: '??? {} \"{}\"…'"."""
    name = name or path.name
    found = []
    for owner, text in _literals(ast.parse(path.read_text(encoding="utf-8"))):
        if (name, owner) in EXCEPTIONS:
            continue
        found += [f"{name}, {owner}: {what}: {text[:60]!r}" for what, pattern in PRESENTATION.items()
                  if pattern.search(text)]
    return found


HOOK_FILES = sorted(p.name for p in HOOKS.glob("*.py"))


@pytest.mark.parametrize("hook", [h for h in HOOK_FILES if h not in PENDING])
def test_a_hook_holds_no_reader_visible_text_or_layout(hook):
    assert presentation_in(HOOKS / hook) == []


def test_the_check_finds_text_and_layout_built_in_python(tmp_path):
    # each way of writing a page in Python that the check knows, and what it leaves alone
    hook = tmp_path / "hook.py"
    hook.write_text(
        '"""A docstring may show | a | table |, **bold** and ??? note "x"."""\n'
        "import re\n"
        "def stamp(kind, title, rows):\n"
        '    return f\'??? {kind} "{title}"\\n\\n    \' + "\\n".join("| " + " | ".join(r) + " |" for r in rows)\n'
        "def head(g, t):\n"
        '    return f"**{g[\'number\']} · {t}**"\n'
        "def link(title, page):\n"
        '    return f"*Corrects:* [{title} › x]({page}#a)"\n'
        "def item(x):\n"
        '    return f"- {x}"\n'
        "def heading(n):\n"
        '    return f"### {n} {{ #errata-{n} }}"\n'
        "def fold(i):\n"
        '    return f\'<details class="note" id="{i}" markdown="1">\'\n'
        "def gap(words):\n"
        '    return "" if words.endswith(("：", "，")) else " "\n'
        'WORDS = "更正"\n'
        "def fine(r, path):\n"
        '    if not r:\n'
        '        raise ValueError(f"{path}: no heading {{ #{r} }} | **here**")\n'
        '    pattern = re.compile(r"^#{1,6}[ \\t]+(?P<text>.+?)\\{ #x \\}$")\n'
        '    return pattern, "a|b".split("|"), r"\\*", "2 ** 3", "# " + r, re.sub(r"^# (.+)", "", r)\n',
        encoding="utf-8",
    )
    found = presentation_in(hook)
    owners = {line.split(":", 1)[0] for line in found}
    names = ("stamp", "head", "link", "item", "heading", "fold", "gap", "WORDS")
    assert owners == {f"hook.py, {name}" for name in names}, found
    assert {line.split(": ")[1] for line in found} == set(PRESENTATION), found


BEFORE_TEMPLATES = "6c754f1"  # the last commit whose hooks wrote pages in Python (item 8 moved them to templates)
FOUND_BEFORE = {
    "benchmarks.py": ["a Markdown table row", "bold or italic Markdown", "an admonition", "a Markdown list item",
                      "an HTML element of a page"],
    "verification.py": ["a Markdown table row", "bold or italic Markdown", "an admonition", "a Markdown heading",
                        "a Markdown list item", "an HTML element of a page"],
    "sources.py": ["a Markdown table row", "bold or italic Markdown", "a Markdown link", "a Markdown heading",
                   "a Markdown list item", "an HTML element of a page", "an attribute list", "full-width punctuation"],
}


@pytest.mark.parametrize("hook", FOUND_BEFORE)
def test_the_check_finds_what_the_hooks_held_before_their_templates(hook, tmp_path):
    shown = subprocess.run(["git", "show", f"{BEFORE_TEMPLATES}:docs/hooks/{hook}"], cwd=REPO, capture_output=True,
                           text=True)
    if shown.returncode != 0:
        pytest.skip(f"commit {BEFORE_TEMPLATES} is not in this clone's history")
    (tmp_path / hook).write_text(shown.stdout, encoding="utf-8")
    found = {line.split(": ")[1] for line in presentation_in(tmp_path / hook)}
    assert found == set(FOUND_BEFORE[hook])
