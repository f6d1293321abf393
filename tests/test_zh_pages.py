"""The built Chinese pages hold no English sentence outside code, names and shown outputs (issue 22, item 4).

An *English sentence* is a run of four or more Latin words (ENGLISH_RUN: letters only, so `torch.cuda`, `H100` or
`cu130` is no word) with only white space between them, in text a reader sees on a page under zh/: its words and
every tooltip, label and description of the theme (TOOLTIPS, and the page's <meta name="description">), which
hold no Chinese at all when they are English (two Latin words suffice there: "Permanent link"). Left out:

- code and what code prints: <code>, <pre>, <kbd>, <samp>, and a notebook cell's hidden copy of its code
  (`clipboard-copy-txt`); pictures: <svg>, whose words the chart draws from docs/data/text/zh/benchmarks.yml;
  scripts and styles;
- the table of contents, which repeats the headings: a heading that names an error message holds it as code;
- quotations of English text, which readers search for as they read: inside “…”, or a <blockquote>;
- NAMES, proper names and titles of English works and tools, each with why it stays.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from site_pages import DOCS, FENCE, pages

# proper names and titles a Chinese page writes in English, as their owners spell them
NAMES = {
    "Understanding CUDA Memory Usage": "the title of PyTorch's page on the memory snapshot, linked by gpu-memory",
    "Active Cached Segment Timeline": "a view of PyTorch's memory viewer, named as its menu reads",
    "OOM killer": "the Linux kernel's out-of-memory killer, as its documentation names it",
    "pytorch-book": "the GitHub project of a source guide, as its owner spells it",
    "CUDA on WSL": "the title of NVIDIA's guide to CUDA under WSL, linked by install",
}
WORD = r"(?<![\w.])[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*(?![\w.])"
ENGLISH_RUN = re.compile(rf"{WORD}(?:\s+{WORD}){{3,}}")
ENGLISH_LABEL = re.compile(rf"{WORD}\s+{WORD}")
CJK = re.compile(r"[\u3400-\u9fff]")
QUOTED = re.compile(r"“[^”]*”")
NOT_READ = {"code", "pre", "kbd", "samp", "svg", "script", "style", "blockquote"}
NOT_READ_CLASSES = {"clipboard-copy-txt"}
TOOLTIPS = ("title", "aria-label", "alt", "placeholder")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _ReadText(HTMLParser):
    """The text of a page a reader reads, as (where, text): "text" for what the page shows, an attribute's name for
    a tooltip or label, "description" for the page's meta description."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, bool]] = []  # (tag, whether it and what it holds are left out)
        self.read: list[tuple[str, str]] = []

    def _skipping(self) -> bool:
        return any(skip for _, skip in self.open)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if not self._skipping():
            self.read += [(name, attrs[name]) for name in TOOLTIPS if attrs.get(name)]
            if tag == "meta" and attrs.get("name") == "description":
                self.read.append(("description", attrs.get("content") or ""))
        if tag in VOID:
            return
        skip = tag in NOT_READ or attrs.get("data-md-component") == "toc" \
            or bool(NOT_READ_CLASSES & set((attrs.get("class") or "").split()))
        self.open.append((tag, skip))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.open and self.open[-1][0] == tag:
            self.open.pop()

    def handle_endtag(self, tag):
        if any(t == tag for t, _ in self.open):  # an element closed implicitly (<p>, <li>) closes here too
            while self.open.pop()[0] != tag:
                pass

    def handle_data(self, data):
        if not self._skipping():
            self.read.append(("text", data))


def english_sentences(page_html: str) -> list[str]:
    """Each English sentence a reader meets on the page, as "where: words"."""
    parser = _ReadText()
    parser.feed(page_html)
    found = []
    for where, text in parser.read:
        text = QUOTED.sub("“”", text)
        for name in NAMES:
            text = text.replace(name, "")
        runs = [m.group(0) for m in ENGLISH_RUN.finditer(text)]
        if where != "text" and not CJK.search(text) and not runs:
            runs = [text.strip()] if ENGLISH_LABEL.search(text) else []
        found += [f"{where}: {' '.join(run.split())}" for run in runs]
    return found


def test_the_check_finds_english_sentences_and_leaves_code_names_and_quotes_alone():
    page = (
        '<html><head><meta name="description" content="Run PyTorch on CPU and GPU, bilingual (English / 中文).">'
        '</head><body><label title="Switch to dark mode"></label><a class="headerlink" title="Permanent link">¶</a>'
        '<a title="复制">x</a><ul data-md-component="toc"><li>CUDA out of memory error here</li></ul>'
        "<p>本站用 torch.cuda.is_available() 和 H100 80GB HBM3 GPU 测过。needs a CUDA GPU: 1 个</p>"
        "<p>报错 “does not yet detect all synchronizing operations”；<code>for p in model.parameters()</code>"
        "</p><pre>Expected all tensors to be on the same device</pre><blockquote>If you are running on a CPU-only"
        ' machine</blockquote><div class="clipboard-copy-txt">from torch import nn</div>'
        "<p>见 Understanding CUDA Memory Usage 一文；Hugging Face Accelerate 与 CUDA GPU</p>"
        "<svg><text>batch size per second here</text></svg><p>no Python block on this page</p></body></html>"
    )
    assert english_sentences(page) == [
        "description: Run PyTorch on CPU and GPU",
        "title: Switch to dark mode",
        "title: Permanent link",
        "text: needs a CUDA GPU",
        "text: no Python block on this page",
    ]


def zh_pages(site: Path) -> list[Path]:
    return sorted((site / "zh").rglob("*.html"))


@pytest.mark.every_page
def test_built_chinese_pages_hold_no_english_sentence(built_site):
    pages = zh_pages(built_site)
    assert len(pages) > 20 and any(p.parent.name == "verification" for p in pages)
    found = [f"{page.relative_to(built_site)}: {sentence}" for page in pages
             for sentence in english_sentences(page.read_text(encoding="utf-8"))]
    assert not found, f"English on {len({f.split(': ')[0] for f in found})} Chinese pages:\n" + "\n".join(found)


@pytest.mark.parametrize("name", NAMES)
def test_every_allowed_name_is_on_a_chinese_page(built_site, name):
    # a name no page writes any more is taken off the list, so the list stays the names the pages use
    assert any(name in page.read_text(encoding="utf-8") for page in zh_pages(built_site)), name



# ------------------------------------------------------------------------------------------- lone English words

# The 2026-12-01 review (../shared/reviews/2026-12-01/chinese.md, §3.2) found 13 English common words standing alone
# in Chinese sentences (“在 barrier 处等着”, “watchdog 线程”, “traceback 指向这一行”, “running 统计量”): too short
# for the sentence check above, and each a word the site has Chinese for. A *lone English word* is a lowercase Latin
# word of two letters or more (one letter is a variable: 第 n 步) in a block of text that holds Chinese. Passed:
# - capitalised words: names and acronyms (GPU, CUDA, PyTorch, Gloo, BatchNorm);
# - code, quotations and NAMES, left out as above, and paths, addresses and repositories (a word touching / . : # @
#   or ASCII parentheses);
# - a gloss: English that opens full-width parentheses or follows a comma in them (看门狗（watchdog）, （即流，stream）,
#   （英文叫 activation checkpointing）), or stands right before a Chinese one (context（上下文）); English within a
#   Chinese parenthesis is read (（或记录在 NumPy ndarray 中）);
# - the words a Chinese page keeps in English: the Latin words of the glossary's Chinese terms (meta 设备, autocast),
#   the Chinese terms of docs/data/terms.yml written in English (fork), and ENGLISH_WORDS, each with why.
ENGLISH_WORDS = {
    **dict.fromkeys(["torch", "torchrun", "torchvision", "pip", "conda", "py-spy", "argparse", "mkdocs-material"],
                    "a program, package or module, named as it is typed"),
    **dict.fromkeys(["shell", "bash", "cmd", "root"], "the shell and the superuser, as Chinese readers type them"),
    **dict.fromkeys(["spawn", "forkserver", "pickle", "lambda"],
                    "Python's start methods, its serialisation and its keyword, named as in its documentation"),
    **dict.fromkeys(["all-reduce", "all-gather", "reduce-scatter"],
                    "the collectives, as Chinese distributed-training writing names them (review of 2026-12-01, §3.2)"),
    **dict.fromkeys(["dropout", "softmax", "logit", "logits", "one-hot", "ndarray"],
                    "terms Chinese machine-learning and programming writing keeps in English"),
}
PLAIN_BLOCKS = {"p", "li", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "div", "summary", "details",
                "tr", "table", "ul", "ol", "figcaption", "section", "nav", "header", "footer", "main", "article",
                "label", "button", "form", "br"}
LONE_WORD = re.compile(r"(?<![\w./:#@()-])[a-z][a-z'’]+(?:-[a-z]+)*(?![\w./:#@()-])")
PARENTHESES = re.compile(r"（(?:[^（）]*[，、])?(?:英文叫|英文|即|也叫)? ?[A-Za-z][^（）]*）")  # a gloss: English first
GLOSSED = re.compile(r"(?<![\w./:#@-])[A-Za-z][\w'’-]*(?=（[\u3400-\u9fff]+）)")


class _ReadBlocks(_ReadText):
    """_ReadText, with a ("break", "") between blocks, so that the words of one paragraph or cell read as one."""

    def handle_starttag(self, tag, attrs):
        if tag in PLAIN_BLOCKS:
            self.read.append(("break", ""))
        super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in PLAIN_BLOCKS:
            self.read.append(("break", ""))
        super().handle_endtag(tag)


def kept_english_words() -> set[str]:
    """The English words a Chinese page may write in its prose: ENGLISH_WORDS, the Latin words of the zh glossary's
    terms (its first column) and the zh terms of docs/data/terms.yml written in Latin letters."""
    glossary = (DOCS / "zh" / "glossary.md").read_text(encoding="utf-8")
    terms = [row.split("|")[1] for row in glossary.splitlines() if row.startswith("| ") and row.count("|") > 3]
    terms += list(yaml.safe_load((DOCS / "data" / "terms.yml").read_text(encoding="utf-8"))["zh"])
    return set(ENGLISH_WORDS) | {word for term in terms for word in LONE_WORD.findall(term)}


KEPT_ENGLISH_WORDS = kept_english_words()


def lone_english_words(page_html: str, kept: set[str] = KEPT_ENGLISH_WORDS) -> list[str]:
    """Each lone English word in the Chinese text of the page, as "word (…its context…)"."""
    parser = _ReadBlocks()
    parser.feed(page_html)
    blocks, block = [], []
    for where, text in [*parser.read, ("break", "")]:
        if where == "text":
            block.append(text)
        elif where == "break" and block:
            blocks.append("".join(block))
            block = []
    found = []
    for text in blocks:
        if not CJK.search(text):
            continue
        text = QUOTED.sub("“”", text)
        for name in NAMES:
            text = text.replace(name, "")
        text = PARENTHESES.sub("（）", GLOSSED.sub("", text))
        for match in LONE_WORD.finditer(text):
            if match.group(0) not in kept:
                context = " ".join(text[max(match.start() - 12, 0):match.end() + 12].split())
                found.append(f"{match.group(0)} (…{context}…)")
    return found


def test_the_check_finds_lone_english_words_and_leaves_names_code_glosses_and_kept_words_alone():
    page = (
        "<p>其他进程都在 barrier 处等着；用 <code>dist.barrier()</code> 等齐。用自己的看门狗（watchdog）线程，"
        "traceback 指向这一行。</p><p>BatchNorm 的 running 统计量；在 <em>import</em> 之前。</p>"
        "<ul><li>NCCL 与 Gloo 在 GPU 上跑 PyTorch 和 DDP；报错 “Rank 1 failed to pass monitoredBarrier”</li>"
        "<li>见 pytorch/pytorch#109478 和 snippets/mnist/train.py；context（上下文）另有所指</li>"
        "<li>用 torchrun 启动，fork 出子进程，meta 设备上的 all-reduce</li></ul>"
        "<table><tr><td>only English here, no Chinese</td><td>超时</td></tr></table>"
        "<blockquote>一个 quoted word</blockquote><pre>进程 waiting</pre>"
    )
    found = lone_english_words(page)
    assert [word.split()[0] for word in found] == ["barrier", "traceback", "running", "import"]
    assert found[0] == "barrier (…其他进程都在 barrier 处等着；用 等齐。用…)"  # the code is left out of the context too
    assert {"meta", "fork", "autocast", "torchrun"} <= KEPT_ENGLISH_WORDS


@pytest.mark.every_page
def test_built_chinese_pages_hold_no_lone_english_word(built_site):
    found = [f"{page.relative_to(built_site)}: {word}" for page in zh_pages(built_site)
             for word in lone_english_words(page.read_text(encoding="utf-8"))]
    assert not found, f"{len(found)} English words alone in Chinese prose (write the site's Chinese term, code in " \
                      "backticks, or a gloss in （）):\n" + "\n".join(found)


@pytest.fixture(scope="module")
def english_words_in_use(built_site) -> set[str]:
    """The lowercase English words the built Chinese pages write in their prose, none of them kept."""
    return {found.split()[0] for page in zh_pages(built_site)
            for found in lone_english_words(page.read_text(encoding="utf-8"), kept=set())}


@pytest.mark.parametrize("word", ENGLISH_WORDS)
def test_every_kept_english_word_is_on_a_chinese_page(english_words_in_use, word):
    # a word no page writes any more is taken off the list, so the list stays the words the pages use
    assert word in english_words_in_use, word


# ------------------------------------------------------------------------------------------ English-shaped pronouns

# The Chinese review (../shared/reviews/2026-11-25/chinese-language.md) counted 241 它 on the zh pages: an English "it"
# carried over, where Chinese names the thing again, drops the subject or puts the topic first. After the rewrite each
# page has at most one, where Chinese keeps it too; a page that gains more was most likely written in English first.
PRONOUN = re.compile(r"它们?")
MOST_PRONOUNS_PER_PAGE = 2


def prose_pronouns(markdown: str) -> int:
    """How many 它/它们 a page's Markdown holds outside code (fenced blocks and `inline code`)."""
    return len(PRONOUN.findall(re.sub(r"`[^`\n]*`", "", FENCE.sub("", markdown))))


def test_the_pronoun_count_leaves_code_alone():
    assert prose_pronouns("它在这里。\n\n```python\n# 它\n```\n\n`它` 与它们") == 2


@pytest.mark.parametrize("page", pages("zh"), ids=lambda p: p.name)
def test_chinese_page_does_not_lean_on_it(page):
    assert prose_pronouns(page.text()) <= MOST_PRONOUNS_PER_PAGE, \
        f"{page.name}: 它 used like an English 'it' (name the thing, drop the subject, or put the topic first)"


# The same holds for every other Chinese text a reader meets. The review of 2026-11-28
# (../shared/reviews/2026-11-28/chinese-language.md) found 49 它 in the Chinese code comments, 41 in the errata's
# Chinese text and 4 in the notebooks' words, where nothing counted them; after their rewrite one is left, in an
# erratum's claim that quotes the guide's own Chinese. Each file is held to a page's cap, and all of them together to
# a few more, so the pronouns cannot come back one file at a time.
MOST_PRONOUNS_IN_DATA = 4
DATA = DOCS / "data"


def _strings(data) -> list[str]:
    """Every string in YAML data, however deep in its lists and mappings."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [text for value in data.values() for text in _strings(value)]
    if isinstance(data, list):
        return [text for value in data for text in _strings(value)]
    return []


def _load(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def chinese_data_texts() -> dict[str, list[str]]:
    """The Chinese texts outside the pages' Markdown, by file: the code comments and docstrings a Chinese page shows
    (docs/data/comments/zh/, values), the hooks' words (docs/data/text/zh/), the errata's zh title, claim and truth,
    and the verification notes' zh text."""
    texts = {}
    for path in sorted((DATA / "comments" / "zh").glob("*.yml")):
        texts[path.relative_to(DOCS).as_posix()] = _strings(list((_load(path) or {}).values()))
    for path in sorted((DATA / "text" / "zh").glob("*.yml")):
        texts[path.relative_to(DOCS).as_posix()] = _strings(_load(path))
    for path in sorted((DATA / "errata").glob("*.yml")):
        texts[path.relative_to(DOCS).as_posix()] = [erratum[field]["zh"] for erratum in _load(path)
                                                    for field in ("title", "claim", "truth")]
    texts["data/verification-notes.yml"] = [note["note"]["zh"] for note in _load(DATA / "verification-notes.yml")]
    return texts


CHINESE_DATA = chinese_data_texts()


def data_pronouns(texts: list[str]) -> int:
    return sum(prose_pronouns(text) for text in texts)


def test_the_data_pronoun_count_reads_every_kind_of_data():
    kinds = {name.split("/")[1] for name in CHINESE_DATA}
    assert kinds >= {"comments", "text", "errata", "verification-notes.yml"}, kinds
    assert data_pronouns(["它会让每一步都等待 GPU", "`它` 不算", "它们"]) == 2


@pytest.mark.parametrize("data", CHINESE_DATA)
def test_chinese_data_does_not_lean_on_it(data):
    assert data_pronouns(CHINESE_DATA[data]) <= MOST_PRONOUNS_PER_PAGE, \
        f"docs/{data}: 它 used like an English 'it' (name the thing, drop the subject, or put the topic first)"


def test_all_the_chinese_data_together_does_not_lean_on_it():
    counts = {data: n for data, texts in CHINESE_DATA.items() if (n := data_pronouns(texts))}
    assert sum(counts.values()) <= MOST_PRONOUNS_IN_DATA, counts
