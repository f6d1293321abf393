"""Chinese pages show, copy and run their code with Chinese comments; snippets/ keeps the English ones.

The words are in docs/data/comments/zh/<snippet folder>.yml (English comment -> Chinese), put in by
site_pages.expand_includes for the build, the notebooks and the page tests alike. The same files give every
docstring a Chinese page shows in Chinese, a line of the docstring at a time.
"""

from __future__ import annotations

import ast
import html
import re
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml
from mkdocs.exceptions import PluginError

import provenance  # docs/hooks/provenance.py
from codeblocks_plugin import page_blocks
from site_pages import (
    COMMENTS,
    COMMENTS_SCHEMA,
    DOCS,
    REPO,
    SNIPPETS,
    code_comments,
    docstring_lines,
    expand_includes,
    load_data,
    pages,
)

LANG = "zh"
SECTION = re.compile(r"--8<-- \[(start|end):([\w-]+)\]")
# one comment the HTML and notebook checks follow, from the tensors page
SHOWN_SNIPPET, SHOWN_EN, SHOWN_ZH = "snippets/tensors/move.py", "# a device name as a string", "# 用字符串写设备名"


def included_lines() -> dict[Path, set[int]]:
    """Snippet file -> the line numbers the zh pages include (a whole file, or a section's lines)."""
    shown: dict[Path, set[int]] = {}
    for page in pages(LANG):
        for block in page_blocks(page.path):
            for include in block.includes:
                path, _, section = include.partition(":")
                lines = (REPO / path).read_text(encoding="utf-8").splitlines()
                inside, wanted = not section, set()
                for number, line in enumerate(lines, 1):
                    marker = SECTION.search(line)
                    if marker and marker.group(2) == section:
                        inside = marker.group(1) == "start"
                    elif inside:
                        wanted.add(number)
                shown.setdefault(REPO / path, set()).update(wanted)
    # the older spellings a page's compatibility note includes, whole (docs/hooks/provenance.py)
    records, spellings = provenance.load(DOCS / "data", REPO), provenance.load_spellings(DOCS / "data", REPO)
    for page in pages(LANG):
        for path in provenance.shown_snippets(records, page.name, spellings):
            lines = (REPO / path).read_text(encoding="utf-8").splitlines()
            shown.setdefault(REPO / path, set()).update(range(1, len(lines) + 1))
    return shown


INCLUDED = included_lines()
TOPICS = sorted({path.parent.name for path in INCLUDED})


def words(topic: str) -> dict[str, str]:
    path = REPO / COMMENTS / LANG / f"{topic}.yml"
    return load_data(path, REPO / COMMENTS_SCHEMA) if path.is_file() else {}


# A Chinese text holds a Chinese character, or is only numbers, units and code (e.g. "1 PiB"): an English
# sentence left in place of its translation has lower-case words of three letters or more.
CJK = re.compile(r"[\u3400-\u9fff]")
ENGLISH_WORD = re.compile(r"\b[a-z]{3,}\b")


def untranslated(text: str) -> bool:
    return not CJK.search(text) and bool(ENGLISH_WORD.search(re.sub(r"`[^`]*`", "", text)))


def test_the_untranslated_check_tells_english_from_numbers_and_code():
    assert untranslated("a device name as a string")
    assert not untranslated("1 PiB") and not untranslated("256 MiB") and not untranslated("用字符串写设备名")


@pytest.mark.parametrize("topic", sorted(p.stem for p in (REPO / COMMENTS / LANG).glob("*.yml")))
def test_every_chinese_text_is_chinese(topic):
    english = {k: v for k, v in words(topic).items() if untranslated(v)}
    assert not english, f"{COMMENTS}/{LANG}/{topic}.yml: left in English: {english}"


@pytest.mark.parametrize("topic", TOPICS)
def test_every_comment_a_chinese_page_shows_has_its_chinese_text(topic):
    known = words(topic)
    missing = [
        f"{path.relative_to(REPO)}:{line}: # {key}"
        for path, lines in sorted(INCLUDED.items())
        if path.parent.name == topic
        for line, _, key in code_comments(path.read_text(encoding="utf-8"))
        if line in lines and key not in known
    ]
    assert not missing, f"no entry in {COMMENTS / LANG / topic}.yml for:\n" + "\n".join(missing)


@pytest.mark.parametrize("data", sorted((REPO / COMMENTS / LANG).glob("*.yml")), ids=lambda p: p.name)
def test_no_translation_is_stale(data):
    folder = SNIPPETS / data.stem
    assert folder.is_dir(), f"{data.relative_to(REPO)}: there is no snippet folder snippets/{data.stem}"
    comments = {key for f in folder.glob("*.py") for _, _, key in code_comments(f.read_text(encoding="utf-8"))}
    comments |= {key for f in folder.glob("*.py") for _, key in docstring_lines(f.read_text(encoding="utf-8"))}
    stale = sorted(set(load_data(data, REPO / COMMENTS_SCHEMA)) - comments)
    assert not stale, f"{data.relative_to(REPO)}: no comment in snippets/{data.stem} reads:\n" + "\n".join(stale)


def test_only_comments_and_docstrings_change_never_code_or_strings(tmp_path):
    source = (
        '"""# a docstring"""\nx = "# a string"  # a comment\n# --8<-- [start:s]\n#\ny = 1  # noqa: E501\n'
        'def f():\n    """Helps.\n\n    a string\n    """\n    return "Helps."\n'
    )
    zh = {"a docstring": "文档", "a string": "字符串", "a comment": "注释", "Helps.": "帮忙。"}
    out = expand_includes_of(source, zh, tmp_path)
    assert out == (
        '"""# a docstring"""\nx = "# a string"  # 注释\n#\ny = 1  # noqa: E501\n'
        'def f():\n    """帮忙。\n\n    字符串\n    """\n    return "Helps."\n'
    )


# A docstring a Chinese page shows is Chinese, line by line (seed 003, the Chinese guide the helpers come from, wrote
# try_gpu's and try_all_gpus's in Chinese; the review of 2026-11-28 found 37 docstrings left in English, 14 of them in
# the MNIST script readers copy). A line that is a command to type (python or torchrun, perhaps after VAR=value)
# stays as written.
COMMAND = re.compile(r"^(?:[A-Z_]+=\S+ +)?(?:python|torchrun) ")


def english_docstring_lines(code: str) -> list[str]:
    """The lines of the docstrings in code that hold no Chinese and are no command."""
    return [key for _, key in docstring_lines(code) if not CJK.search(key) and not COMMAND.match(key)]


def test_the_docstring_check_finds_english_and_leaves_commands_alone():
    code = (
        '"""Train a model.\n\ntorchrun --standalone t.py\nPYTORCH_ALLOC_CONF=a:b python t.py\n"""\n'
        'def f():\n    """帮忙。\n\n    One pass over the batches.\n    """\n'
    )
    assert english_docstring_lines(code) == ["Train a model.", "One pass over the batches."]


@pytest.mark.parametrize("page", pages(LANG), ids=lambda p: p.name)
def test_a_chinese_page_shows_every_docstring_in_chinese(page):
    english = []
    for block in page_blocks(page.path):
        if not block.includes:
            continue
        ast.parse(block.expanded.code)  # a block that does not parse would hide its docstrings from the check
        english += [f"{', '.join(block.includes)}: {line}" for line in english_docstring_lines(block.expanded.code)]
    assert not english, f"{page.name}: docstrings with no entry in {COMMENTS / LANG}/<snippet folder>.yml:\n" \
        + "\n".join(english)


@pytest.mark.every_page
def test_the_snippets_keep_their_docstrings_in_english():
    chinese = [f"{path.relative_to(REPO)}:{line}" for path in sorted(INCLUDED)
               for line, key in docstring_lines(path.read_text(encoding="utf-8")) if CJK.search(key)]
    assert not chinese


def expand_includes_of(source: str, zh: dict[str, str], repo: Path) -> str:
    """source as snippets/t/s.py of a scratch repo with zh as its Chinese words, included by a zh page."""
    (repo / "snippets" / "t").mkdir(parents=True)
    (repo / "snippets" / "t" / "s.py").write_text(source, encoding="utf-8")
    (repo / COMMENTS / LANG).mkdir(parents=True)
    (repo / COMMENTS / LANG / "t.yml").write_text(yaml.safe_dump(zh, allow_unicode=True), encoding="utf-8")
    shutil.copy(REPO / COMMENTS_SCHEMA, repo / COMMENTS_SCHEMA)
    shutil.copy(REPO / "mkdocs.yml", repo / "mkdocs.yml")
    return expand_includes('--8<-- "snippets/t/s.py"\n', LANG, repo).removesuffix("\n")


BROKEN = {
    "empty text": ("a comment: ''\n", "a comment"),
    "not text": ("a comment: 3\n", "a comment"),
    "no text at all": ("a comment:\n", "a comment"),
}


@pytest.mark.parametrize(("yml", "key"), BROKEN.values(), ids=BROKEN.keys())
def test_a_malformed_file_is_refused_naming_file_and_key(yml, key, tmp_path):
    (tmp_path / COMMENTS / LANG).mkdir(parents=True)
    shutil.copy(REPO / COMMENTS_SCHEMA, tmp_path / COMMENTS_SCHEMA)
    bad = tmp_path / COMMENTS / LANG / "devices.yml"
    bad.write_text(yml, encoding="utf-8")
    with pytest.raises(PluginError) as error:
        load_data(bad, tmp_path / COMMENTS_SCHEMA, tmp_path)
    assert f"docs/data/comments/zh/devices.yml: field '{key}'" in str(error.value)


def _code_texts(page_html: str) -> list[str]:
    """The text of each code block: what Material's copy button copies (its <code> element's text)."""
    blocks = re.findall(r'<div class="[^"]*highlight[^"]*">.*?<code>(.*?)</code>', page_html, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", b)).rstrip() for b in blocks]


@pytest.mark.parametrize(("lang", "comment", "other"), [("zh", SHOWN_ZH, SHOWN_EN), ("en", SHOWN_EN, SHOWN_ZH)])
def test_the_built_page_shows_and_copies_its_languages_comment(built_site, lang, comment, other):
    page_html = (built_site / ("zh" if lang == "zh" else "") / "tensors" / "index.html").read_text(encoding="utf-8")
    assert f'<span class="c1">{html.escape(comment, quote=False)}</span>' in page_html
    assert other not in page_html
    expected = expand_includes(f'--8<-- "{SHOWN_SNIPPET}"\n', lang=lang).rstrip()
    assert comment in expected
    assert expected in _code_texts(page_html), "no code block's text (what the copy button copies) is the snippet"


@pytest.mark.parametrize(("lang", "comment"), [("zh", SHOWN_ZH), ("en", SHOWN_EN)])
def test_the_notebook_carries_its_languages_comment(built_site, lang, comment):
    folder = built_site / ("zh" if lang == "zh" else "") / "notebooks" / "tensors"  # the download beside its page
    nb = nbformat.read(folder / "tensors.ipynb", as_version=4)
    expected = expand_includes(f'--8<-- "{SHOWN_SNIPPET}"\n', lang=lang).rstrip("\n")
    assert expected in [c.source.rstrip("\n") for c in nb.cells if c.cell_type == "code"]
    assert comment in expected


@pytest.mark.every_page
def test_the_snippet_itself_and_the_english_page_keep_english_comments():
    assert SHOWN_EN in (REPO / SHOWN_SNIPPET).read_text(encoding="utf-8")
    en = [b.expanded.code for b in page_blocks(DOCS / "en" / "tensors.md") if SHOWN_SNIPPET in b.includes]
    zh = [b.expanded.code for b in page_blocks(DOCS / LANG / "tensors.md") if SHOWN_SNIPPET in b.includes]
    assert [code.rstrip() for code in en] == [(REPO / SHOWN_SNIPPET).read_text(encoding="utf-8").rstrip()]
    assert SHOWN_ZH in zh[0]
    assert [line.split("#")[0] for line in zh[0].splitlines()] == [line.split("#")[0] for line in en[0].splitlines()]
