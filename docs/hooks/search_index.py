"""Search in the reader's language: tag the merged search index by language and ship the query rules.

mkdocs-static-i18n builds each language in turn and merges their entries into one
`search/search_index.json`, which Material's search would fetch on every page of every language. This hook
splits it: each language's entries go into an index in that language's folder (`zh/search/search_index.json`,
the default language's at the root), where `docs/overrides/main.html` points the search of that language's
pages, so a page fetches only its own language. The worker wrapper (`docs/hooks/search_in_language.js`,
started by `docs/overrides/main.html`) rewrites queries; this hook puts it next to Material's worker and gives
it what it needs, inside the index that reaches it:

- each entry gets `lang`, the language folder its location starts with (the default language has none),
  which decides its index;
- `config.query` holds, per language, the stop words and synonyms of `docs/data/search.yml`;
- a page's `keywords` (front matter: the words readers use for what the page teaches, where the page
  itself uses others) go into the `keywords` field of its first entry, which mkdocs.yml declares as a
  search field; Chinese keywords are cut by jieba, as Material cuts the text;
- a section's keywords (docs/data/section_keywords.yml: the same, for what one section answers) go into
  the `section_keywords` field of that section's entry, cut the same way.

The index is also shaped for the reader's query (the worker wrapper does the rest): the snippets' source
goes from `text` into a `code` field of its own, weighed lower (split_code), the notebook pages,
copies of the pages they are made from, count a tenth (NOTEBOOK_BOOST), and a section of a page in a language
other than the anchors' gets its anchor's words in an `anchor` field (anchor_words).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jieba
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from site_pages import LANGUAGES, REPO, Page, language_of_url, load_data, parse_yaml

jieba.setLogLevel("WARNING")  # its "Building prefix dict" lines in every build say nothing

# a snippet's source as a page shows it: the snippet's name (page_text's title) and its code block
SNIPPET_SOURCE = re.compile(r"(snippets/[\w./-]+\.py[^<]*)<pre><code>(.*?)</code></pre>", re.S)
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")  # the Han script, as far as the pages use it
SEARCH_RULES = REPO / "docs" / "data" / "search.yml"
TERMS = REPO / "docs" / "data" / "terms.yml"
TERMS_SCHEMA = REPO / "docs" / "data" / "terms.schema.json"
SECTION_KEYWORDS = REPO / "docs" / "data" / "section_keywords.yml"
SECTION_KEYWORDS_SCHEMA = REPO / "docs" / "data" / "section_keywords.schema.json"
PLAIN = re.compile(r"\w+(?: \w+)*")  # a word, or words with single spaces between: no regular-expression syntax
# kept out of docs/overrides/: mkdocs-static-i18n maps the theme's static files there onto docs/ and
# fails to copy them; written next to Material's worker, whose "../lunr" it shares
WORKER = Path(__file__).with_name("search_in_language.js")
WORKER_DEST = Path("assets") / "javascripts" / "workers" / WORKER.name
# The pages' notebooks are pages too (docs/<lang>/notebooks/) and repeat, word for word, the page each is
# made from: searched as they are, they came up first as often as their page (the notebook's first entry
# holds all its text). Their entries count a tenth (Material's per-entry `boost`): a notebook is found,
# after the pages.
NOTEBOOK_BOOST = 0.1
NOTEBOOK_PAGES: set[str] = set()  # their URLs, as the build meets them
# A section's anchor is the same in every language (CONTRIBUTING.md), written in English words
# (#allocated-vs-reserved): on a Chinese page, the words a reader types in English for what the section's
# Chinese heading says ("memory_reserved 为什么比 memory_allocated 大"). Weighed in mkdocs.yml.
ANCHOR_LANGUAGE = "en"


def query_rules() -> dict:
    rules = parse_yaml(SEARCH_RULES.read_text(encoding="utf-8"), "docs/data/search.yml") or {}
    unknown = set(rules) - set(LANGUAGES)
    if unknown:
        raise PluginError(f"docs/data/search.yml: field '{sorted(unknown)[0]}': not a language of the site")
    for lang, variants in term_variants().items():
        rules.setdefault(lang, {})["variants"] = variants
    return rules


def term_variants() -> dict[str, dict[str, str]]:
    """Per language, each variant of docs/data/terms.yml that is a plain word or phrase -> the term the pages
    use instead. The pages never say a variant (tests/test_glossary.py), so a reader who types one
    (梯度检查点, 批大小, input pipeline) finds only what shares its parts by chance; the worker wrapper puts the
    pages' term in its place. The variants written as patterns (lookarounds, alternatives) are left out."""
    terms = load_data(TERMS, TERMS_SCHEMA)
    return {lang: {variant.lower(): term for term, variants in words.items() for variant in variants
                   if PLAIN.fullmatch(variant)} for lang, words in terms.items()}


def cut_chinese(text: str) -> str:
    """Chinese runs cut into words with U+200B between them, as Material's search plugin indexes text."""
    return HAN.sub(lambda m: "\u200b" + "\u200b".join(jieba.cut(m.group())) + "\u200b", text).strip("\u200b")


def split_code(entry: dict) -> dict:
    """The entry with the snippets' source moved out of `text` into `code` (a field of its own, weighed
    lower in mkdocs.yml): a whole training script shares words with most questions about training, and
    outranked the section that explains the one thing asked. What the snippets print (an error message
    as a reader pastes it) and the prose stay in `text`, and so does the teaser Material shows under
    each result."""
    code = []
    text = SNIPPET_SOURCE.sub(lambda m: code.append(f"{m[1]}\n{m[2]}") or "", entry["text"])
    return {**entry, "text": text, "code": "\n".join(code)} if code else entry


def anchor_words(entry: dict) -> dict:
    """The entry of a section in a language other than ANCHOR_LANGUAGE, with its anchor's words in `anchor`."""
    anchor = entry["location"].partition("#")[2]
    return {**entry, "anchor": anchor.replace("-", " ")} if anchor and entry["lang"] != ANCHOR_LANGUAGE else entry


@event_priority(-50)  # after Material's search plugin has added the page's entries
def on_page_context(context, page, config, nav):
    if page.file.src_uri.endswith(".ipynb"):  # a page's notebook, rendered as a page (notebooks.py)
        NOTEBOOK_PAGES.add(page.url)
    keywords = page.meta.get("keywords")
    if not keywords:
        return context
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise PluginError(f"{page.file.src_uri}: front matter `keywords` must be a list of strings")
    plugin = config.plugins.get("material/search") or config.plugins.get("search")
    entry = next((e for e in reversed(plugin.search_index.entries) if e["location"] == page.url), None)
    if entry is None:
        raise PluginError(f"{page.file.src_uri}: has keywords but no search entry of its own")
    entry["keywords"] = keyword_words(keywords)
    return context


def keyword_words(keywords: list[str]) -> str:
    """A page's keywords as the index gets them: cut as the text is, each word once. A word that several
    keywords share ("多卡训练", "分片训练") says no more about the page for being repeated, and counted as
    often as repeated it lifted the page for any question with that common word in it."""
    words = re.split(r"[\s,\u200b]+", cut_chinese(", ".join(keywords)))
    return " ".join(dict.fromkeys(word for word in words if word))


@event_priority(-110)  # after mkdocs-static-i18n (-100) has written the index of all languages
def on_post_build(config):
    site = Path(config.site_dir)
    (site / WORKER_DEST).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(WORKER, site / WORKER_DEST)
    path = site / "search" / "search_index.json"
    if not path.is_file():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    index["docs"] = [split_code(doc) for doc in index["docs"]]
    for doc in index["docs"]:
        doc["lang"] = language_of_url(doc["location"])
        if doc["location"].partition("#")[0] in NOTEBOOK_PAGES:
            doc["boost"] = doc.get("boost", 1) * NOTEBOOK_BOOST
    index["docs"] = [anchor_words(doc) for doc in index["docs"]]
    add_section_keywords(index["docs"], section_keywords())
    index["config"]["query"] = query_rules()
    for lang, part in split_by_language(index).items():
        language_index(site, lang).parent.mkdir(parents=True, exist_ok=True)
        language_index(site, lang).write_text(json.dumps(part, ensure_ascii=False, separators=(",", ":")),
                                                 encoding="utf-8")


def language_index(site: Path, lang: str) -> Path:
    """Where a language's own search index is: in its folder (zh/search/search_index.json), where
    docs/overrides/main.html points the search of its pages; the default language's at the root."""
    return site / language_folder(lang) / "search" / "search_index.json"


def language_folder(lang: str) -> str:
    return "" if lang == LANGUAGES[0] else f"{lang}/"


def split_by_language(index: dict) -> dict[str, dict]:
    """The merged index as one index per language, which is all a page of that language fetches: its entries
    with their locations from the language's folder (the base its pages search from), its query rules."""
    parts = {lang: {**index, "config": {**index["config"], "query": {lang: index["config"]["query"].get(lang, {})}},
                    "docs": []} for lang in LANGUAGES}
    for doc in index["docs"]:
        entry = {key: value for key, value in doc.items() if key != "lang"}
        entry["location"] = doc["location"].removeprefix(language_folder(doc["lang"]))
        parts[doc["lang"]]["docs"].append(entry)
    return parts


def read_indexes(site: Path) -> dict:
    """The built languages' indexes read back as one: every entry with its `lang` and its location from the site
    root, the config with every language's query rules (what the tests check)."""
    merged: dict = {"docs": []}
    for lang in LANGUAGES:
        part = json.loads(language_index(site, lang).read_text(encoding="utf-8"))
        merged["config"] = {**part["config"], "query": {**merged.get("config", {}).get("query", {}),
                                                        **part["config"]["query"]}}
        merged["docs"] += [{**doc, "lang": lang, "location": language_folder(lang) + doc["location"]}
                           for doc in part["docs"]]
    return merged


def section_keywords() -> dict:
    """docs/data/section_keywords.yml, checked against its schema: language -> page -> anchor -> words."""
    return load_data(SECTION_KEYWORDS, SECTION_KEYWORDS_SCHEMA)


def add_section_keywords(docs: list[dict], keywords: dict) -> None:
    """Each section's keywords (docs/data/section_keywords.yml: language -> page -> anchor -> words) into the
    `section_keywords` field of its entry, as keyword_words cuts them. An anchor that no entry has (renamed,
    or its language's page lacks it) stops the build, naming the field: it would otherwise find nothing, unseen."""
    if unknown := sorted(set(keywords) - set(LANGUAGES)):
        raise PluginError(f"docs/data/section_keywords.yml: field '{unknown[0]}': not a language of the site")
    entries = {doc["location"]: doc for doc in docs}
    built = {doc["lang"] for doc in docs}  # mkdocs-static-i18n ends a build per language: the index grows
    for lang, by_page in keywords.items():
        if lang not in built:
            continue
        for name, sections in by_page.items():
            for anchor, words in sections.items():
                doc = entries.get(f"{Page(lang, name).url}#{anchor}")
                if doc is None:
                    raise PluginError(f"docs/data/section_keywords.yml: field '{lang}.{name}.{anchor}': "
                                      f"docs/{lang}/{name} has no section #{anchor}")
                doc["section_keywords"] = keyword_words(words)
