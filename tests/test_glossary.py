"""One word per idea: the glossary's terms, not their variants (docs/data/terms.yml), in every word a reader of a
language meets: the pages' prose, the code comments shown in that language, the hooks' words
(docs/data/text/<lang>/), and the errata's and the verification notes' text in that language; and what an entry says
of PyTorch where no page's test pins it (DDP's buckets).

That every glossary entry links to a real section is checked with every other link by the strict build
(`validation: links: anchors` in mkdocs.yml).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from distributed import run_python
from search_index import PLAIN
from site_pages import DOCS, LANGUAGES, REPO, pages

TERMS = yaml.safe_load((DOCS / "data" / "terms.yml").read_text(encoding="utf-8"))

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+).+?\1")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
HTML_COMMENT = re.compile(r"<!--.*?-->")
HEADING_ID = re.compile(r"\{\s*#[\w-]+\s*\}")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of what a reader reads as sentences: no front matter, code, link targets,
    HTML comments or heading ids."""
    lines = text.splitlines()
    start = 0
    if lines and lines[0].strip() == "---":
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
    prose, in_fence = [], False
    for number, line in enumerate(lines[start:], start + 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for pattern in (HTML_COMMENT, INLINE_CODE, LINK_TARGET, HEADING_ID):
            line = pattern.sub(" ", line)
        prose.append((number, line))
    return prose


def rejected_words(text: str, lang: str, plain_only: bool = False) -> list[tuple[int, str, str]]:
    """(line, variant found, word to use) for every rejected variant in the prose of a page's text (plain_only: only
    the variants that are plain words, those the search puts the term in place of)."""
    found = []
    for number, line in prose_lines(text):
        for preferred, variants in TERMS[lang].items():
            for variant in variants:
                if plain_only and not PLAIN.fullmatch(variant):
                    continue
                for match in re.finditer(variant, line):
                    found.append((number, match.group(0), preferred))
    return found


def test_every_language_has_its_term_list():
    assert set(TERMS) == set(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.every_page
def test_the_prose_uses_one_word_per_idea(lang):
    wrong = [
        f"{page.path.relative_to(REPO)}:{number}: “{found}” — use “{preferred}”"
        for page in pages(lang)
        if page.name != "glossary.md"
        for number, found, preferred in rejected_words(page.text(), lang)
    ]
    assert not wrong, "terms other than the glossary's:\n" + "\n".join(wrong)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.every_page
def test_the_glossary_gives_every_preferred_word(lang):
    glossary = (DOCS / lang / "glossary.md").read_text(encoding="utf-8")
    assert [word for word in TERMS[lang] if word not in glossary] == []


def test_the_check_finds_variants_in_prose_and_ignores_code():
    page = "\n".join(
        [
            "---",
            "keywords: [周期]",  # front matter: not prose
            "---",
            "每个周期结束时，队列就会被清空。",  # line 4: two variants
            "`train_epoch` 与 [链接](performance.md#loss-per-epoch)",  # inline code and a link target
            "```python",
            "epoch = 1  # 数据管线",  # code
            "```",
            "## 每轮 { #loss-per-epoch }",  # a heading id
            "按批大小 32 训练三个 epoch。",  # line 10: two variants
            "十几个小内核；要先重启内核。",  # line 11: a GPU kernel, then a notebook's kernel
        ]
    )
    assert rejected_words(page, "zh") == [
        (4, "周期", "轮"),
        (4, "队列就会被清空", "排空"),
        (10, "epoch", "轮"),
        (10, "批大小", "批量大小"),
        (11, "内核", "核函数"),
    ]


def test_the_check_tells_a_build_from_a_version_and_a_laptop_from_a_notebook():
    # the review's sentence wrong in meaning (a version ships a CUDA, a ROCm and an XPU build), and the other
    # forms where 版本 or 构建 can only mean the build
    builds = "每个 PyTorch 版本最多只针对一种加速器。PyTorch 的 ROCm 版本沿用 cuda。装着 CPU 版本时；ROCm 构建也是。"
    assert sorted(found for _, found, word in rejected_words(builds, "zh") if word == "CUDA 版") == sorted(
        ["每个 PyTorch 版本最多只针对一种加速器", "PyTorch 的 ROCm 版本", "CPU 版本", "ROCm 构建"])
    # a version is still 版本: the CUDA version a wheel was built for, the driver's highest CUDA version
    versions = "编译时所针对的 CUDA 版本；驱动支持的最高 CUDA 版本；ROCm 7.14 版本；CUDA 13.2 版的 PyTorch 2.15.0。"
    assert rejected_words(versions, "zh") == []
    notebooks = "在没有 GPU 的笔记本上运行；在 Jupyter 笔记本里；拿到笔记本电脑上；重启 Jupyter 笔记本的内核。"
    assert [found for _, found, _ in rejected_words(notebooks, "zh")] == ["笔记本"]


def test_the_page_list_is_not_empty():
    # a wrong DOCS path would make the prose check pass over nothing
    assert all(len(pages(lang)) > 5 for lang in LANGUAGES)
    assert Path(DOCS / "zh" / "glossary.md").is_file()


def strings_in(data, where: str) -> list[tuple[str, str]]:
    """(where, text) of every string in YAML data, however deep in its lists and mappings."""
    if isinstance(data, str):
        return [(where, data)]
    if isinstance(data, dict):
        return [found for key, value in data.items() for found in strings_in(value, f"{where}.{key}")]
    if isinstance(data, list):
        return [found for i, value in enumerate(data) for found in strings_in(value, f"{where}[{i}]")]
    return []


def _load(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def data_texts(lang: str) -> dict[str, list[tuple[str, str]]]:
    """(where, text) of what a reader of lang meets outside the pages' Markdown, by kind: the code comments a page
    shows in lang (docs/data/comments/<lang>/, values), the hooks' words (docs/data/text/<lang>/) and their templates
    written for lang (docs/overrides/<hook>/*.<lang>.md, line by line), and the lang text of the errata (title, claim,
    truth) and of the verification notes; and the sections' search keywords (docs/data/section_keywords.yml)."""
    data = DOCS / "data"
    return {
        "templates": [(f"{path.relative_to(REPO)}:{number}", line)
                      for path in sorted((DOCS / "overrides").glob(f"*/*.{lang}.md"))
                      for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)],
        "comments": [(f"{path.relative_to(REPO)}: {english!r}", text)
                     for path in sorted((data / "comments" / lang).glob("*.yml"))
                     for english, text in (_load(path) or {}).items()],
        "text": [found for path in sorted((data / "text" / lang).glob("*.yml"))
                 for found in strings_in(_load(path), str(path.relative_to(REPO)))],
        "errata": [(f"{path.relative_to(REPO)}: {erratum['id']}.{field}", erratum[field][lang])
                   for path in sorted((data / "errata").glob("*.yml"))
                   for erratum in _load(path) for field in ("title", "claim", "truth")],
        "notes": [(f"docs/data/verification-notes.yml: {note['test']}", note["note"][lang])
                  for note in _load(data / "verification-notes.yml")],
        # not shown, but searched with: a variant typed is searched as the pages' term (search_index.term_variants),
        # so a keyword that says a variant could never match
        "section keywords": strings_in((_load(data / "section_keywords.yml") or {}).get(lang),
                                       f"docs/data/section_keywords.yml: {lang}"),
    }


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_data_a_reader_meets_uses_one_word_per_idea(lang):
    """Comments shown in a page's code, the stamp's, chart's and notebooks' words, errata and notes are read like
    the prose: same words."""
    hits = [
        f"{where}: {found!r}, use {preferred!r}"
        for kind, texts in data_texts(lang).items()
        for where, text in texts
        # a keyword is a reader's words: only a plain variant, which the search replaces by the term, cannot match
        for _, found, preferred in rejected_words(text, lang, plain_only=kind == "section keywords")
    ]
    assert not hits, "terms other than the glossary's:\n" + "\n".join(hits)


def test_the_data_check_reads_every_kind_of_data_and_every_string_in_it():
    texts = data_texts("zh")
    counts = {kind: len(found) for kind, found in texts.items()}
    # no template is written per language since the MNIST findings were written by hand (its kind stays for the next)
    assert all(counts[kind] > 3 for kind in ("comments", "text", "errata", "notes", "section keywords")), counts
    nested = {"a": ["一个周期", {"b": "批大小"}], "n": 3}
    assert strings_in(nested, "x.yml") == [("x.yml.a[0]", "一个周期"), ("x.yml.a[1].b", "批大小")]
    assert [found for where, text in strings_in(nested, "x") for _, found, _ in rejected_words(text, "zh")] == [
        "周期", "批大小"]


# ---- what an entry says of PyTorch -------------------------------------------------------------------------

# The order of DDP's all-reduces and the backward pass, in a world of one: a comm hook (the default all-reduce,
# which averages) notes each bucket, a backward hook on the ReLU between the two layers notes when backward is there.
DDP_ORDER = """\
import torch, torch.distributed as dist
import torch.distributed.nn
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
events = []


def hook(state, bucket):
    events.append(f"all-reduce of bucket {bucket.index()}")
    return default_hooks.allreduce_hook(None, bucket)


relu = nn.ReLU()
model = DistributedDataParallel(nn.Sequential(nn.Linear(1000, 1000), relu, nn.Linear(1000, 1000)), bucket_cap_mb=1)
model.register_comm_hook(None, hook)
relu.register_full_backward_hook(lambda *_: events.append("backward passes the ReLU"))
for _ in range(2):  # DDP puts every parameter in one bucket for the first step, then rebuilds the buckets
    events.clear()
    model(torch.randn(8, 1000)).sum().backward()
print(events)
del model
dist.destroy_process_group()
"""


def test_ddp_averages_gradients_bucket_by_bucket_during_the_backward_pass():
    # glossary "DistributedDataParallel (DDP)": not after the backward pass, during it. The last layer's bucket
    # is all-reduced before backward has reached the first layer, whose bucket follows.
    order = ast.literal_eval(run_python(DDP_ORDER, CUDA_VISIBLE_DEVICES=""))
    assert order == ["all-reduce of bucket 0", "backward passes the ReLU", "all-reduce of bucket 1"]
    # DDP's docstring says the same: tests/data/citations.yml
    said = {"en": "during every backward pass, bucket by bucket", "zh": "每次反向传播的过程中，梯度按桶"}
    for lang, words in said.items():
        glossary = (REPO / "docs" / lang / "glossary.md").read_text(encoding="utf-8")
        row = next(line for line in glossary.splitlines() if "DistributedDataParallel (DDP)" in line)
        assert words in row and "after every backward" not in row and "反向传播后" not in row, lang
