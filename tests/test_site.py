"""The spine's promises: strict build, zh/en parity, includes only, offline pages, lint."""

from __future__ import annotations

import gzip
import html as html_text
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit
from xml.etree import ElementTree

import pytest
import yaml
from mkdocs.exceptions import PluginError
from mkdocs.utils.yaml import yaml_load
from pymdownx.snippets import SnippetMissingError

import provenance  # docs/hooks/provenance.py
import search_index  # docs/hooks/search_index.py
from codeblocks_plugin import page_blocks
from site_build import copy_of_repo, mkdocs_build, notebooks_rendered, offline_prefix
from site_pages import DOCS, INCLUDE, LANGUAGES, REPO, SNIPPETS, expand_includes, pages, settings

LOCAL_HOSTS = ("127.0.0.1", "localhost")


def rel_pages(lang: str) -> list[str]:
    return [p.name for p in pages(lang)]


@pytest.mark.every_page
def test_every_page_exists_in_both_languages():
    assert rel_pages("en"), "no English pages"
    assert rel_pages("en") == rel_pages("zh")


@pytest.mark.parametrize("page", rel_pages("en"))
def test_both_languages_include_the_same_snippets_in_the_same_order(page):
    def shape(lang):  # a fence's title (`python title="..."`) is in the page's language: its syntax is compared
        return [(b.raw.syntax.split(" ", 1)[0], b.includes, sorted(b.marks)) for b in page_blocks(DOCS / lang / page)]

    assert shape("zh") == shape("en")


def nav_files(items) -> list[str]:
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        if isinstance(value, list):
            yield from nav_files(value)
        else:
            yield value


@pytest.mark.every_page
def test_every_page_is_in_the_nav():
    # MkDocs only logs a page left out of the nav, and --strict lets it pass: the page is then unreachable
    missing = sorted(set(rel_pages("en")) - set(nav_files(settings()["nav"])))
    assert not missing, (f"not in the nav: {', '.join(missing)}: add `- <Title>: <page>.md` under a section of `nav:` "
                         "in mkdocs.yml, and `<Title>: <Chinese title>` to the zh language's nav_translations there")


@pytest.mark.every_page
def test_every_nav_title_has_a_chinese_translation():
    def titles(items):
        for item in items:
            if isinstance(item, dict):
                for title, sub in item.items():
                    yield title
                    if isinstance(sub, list):
                        yield from titles(sub)

    zh = next(lang for plugin in settings()["plugins"] if isinstance(plugin, dict) and "i18n" in plugin
              for lang in plugin["i18n"]["languages"] if lang["locale"] == "zh")
    missing = set(titles(settings()["nav"])) - set(zh["nav_translations"])
    assert not missing


@pytest.mark.every_page
def test_python_fences_hold_only_includes():
    literal = []
    for lang in LANGUAGES:
        for page in pages(lang):
            for block in page_blocks(page.path):
                if block.raw.syntax in {"python", "py"} or (block.raw.syntax or "").startswith("python "):
                    code = [ln for ln in block.raw.code.splitlines() if ln.strip() and not INCLUDE.match(ln)]
                    if code or not block.includes:
                        literal.append(f"{page.path.relative_to(REPO)} {block.label}")
    assert not literal


@pytest.mark.every_page
def test_every_snippet_is_shown_on_a_page():
    included = {
        inc.split(":", 1)[0]
        for lang in LANGUAGES
        for page in pages(lang)
        for block in page_blocks(page.path)
        for inc in block.includes
    }
    # the older spellings, shown by a page's compatibility note (docs/hooks/provenance.py)
    records, spellings = provenance.load(DOCS / "data", REPO), provenance.load_spellings(DOCS / "data", REPO)
    included |= {f for page in pages() for f in provenance.shown_snippets(records, page.name, spellings)}
    snippets = {p.relative_to(REPO).as_posix() for p in SNIPPETS.rglob("*.py")}
    assert snippets - included == set()


class _Resources(HTMLParser):
    """Collects what a browser would fetch while loading a page (not plain links)."""

    def __init__(self):
        super().__init__()
        self.fetched: list[str] = []

        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self._in_script = tag == "script"
        a = dict(attrs)
        if tag in {"script", "img", "iframe", "audio", "video", "source", "embed"} and a.get("src"):
            self.fetched.append(a["src"])
        if tag == "link" and a.get("href") and a.get("rel", "") not in {"canonical", "alternate"}:
            self.fetched.append(a["href"])
        if tag == "object" and a.get("data"):
            self.fetched.append(a["data"])

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:  # an inline script can fetch too (import(), fetch, new script elements)
            self.fetched += re.findall(r"""["'`]((?:https?:)?//[^"'`\s]+)""", data)


def external(url: str) -> bool:
    url = url.strip()
    if url.startswith("//"):
        return True
    m = re.match(r"^[a-z][a-z0-9+.-]*://([^/:]+)", url, re.I)
    return bool(m) and m.group(1) not in LOCAL_HOSTS


@pytest.mark.every_page
def test_built_pages_load_nothing_from_outside(built_site):
    offenders = []
    for html in built_site.rglob("*.html"):
        parser = _Resources()
        parser.feed(html.read_text(encoding="utf-8"))
        offenders += [f"{html.relative_to(built_site)}: {u}" for u in parser.fetched if external(u)]
    for css in built_site.rglob("*.css"):
        for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", css.read_text(encoding="utf-8")):
            if external(url):
                offenders.append(f"{css.relative_to(built_site)}: {url}")
    assert not offenders


@pytest.mark.every_page
def test_both_languages_are_built(built_site):
    for page in rel_pages("en"):
        stem = page.removesuffix(".md")
        target = "index.html" if stem == "index" else f"{stem}/index.html"
        assert (built_site / target).is_file(), target
        assert (built_site / "zh" / target).is_file(), f"zh/{target}"


def test_language_switch_points_at_the_same_page(built_site):
    zh = (built_site / "zh" / "devices" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'href="[./]*devices/"[^>]*hreflang="en"', zh), "zh devices page: no link to en devices"
    en = (built_site / "devices" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'href="[./]*zh/devices/"[^>]*hreflang="zh"', en), "en devices page: no link to zh devices"


def test_the_site_builds_with_the_network_cut(built_site):
    """built_site is built inside a network namespace where the machine allows one: prove the cut held."""
    prefix = offline_prefix()
    if not prefix:
        pytest.skip("cannot create a network namespace here (unshare --net is refused)")
    connect = "import socket; socket.create_connection(('pypi.org', 443), 3)"
    probe = subprocess.run([*prefix, sys.executable, "-c", connect], capture_output=True, text=True)
    assert probe.returncode != 0, "the network was not cut"
    assert (built_site / "index.html").is_file()


# --- the site's own addresses: site_url (sitemap, language links) and repo_url + edit_uri (edit buttons) ---

SITEMAP = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
# GitHub's context for a repository example/pytorch-on-cpu-and-gpu, published as a project page (an address
# with a path)
GITHUB_CONTEXT = {"github.repository_owner": "example", "github.event.repository.name": "pytorch-on-cpu-and-gpu",
                  "github.server_url": "https://github.com", "github.repository": "example/pytorch-on-cpu-and-gpu"}


def deploy_build_env() -> dict[str, str]:
    """The environment of the deploy workflow's build step (.github/workflows/docs.yml), in GitHub's context
    for the example repository."""
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "docs.yml").read_text(encoding="utf-8"))
    step = next(step for job in workflow["jobs"].values() for step in job.get("steps", [])
                if step.get("name") == "Build the site")

    def expand(value) -> str:
        return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: GITHUB_CONTEXT[m.group(1)], str(value))

    return {name: expand(value) for name, value in step.get("env", {}).items()}


def site_url_of_config() -> str | None:
    """site_url as mkdocs.yml gives it in this environment (its !ENV default where SITE_URL is unset)."""
    with open(REPO / "mkdocs.yml", encoding="utf-8") as f:
        url = yaml_load(f).get("site_url")  # read now: settings() keeps what it read first
    return url if not url or url.endswith("/") else url + "/"


def _page_of(site, site_url: str, url: str):
    """The built file that serves url, an address under site_url, or None where the site has none."""
    if not url.startswith(site_url):
        return None
    path = url.removeprefix(site_url).split("#", 1)[0]
    target = site / path / "index.html" if path.endswith("/") or not path else site / path
    return target if target.is_file() else None


def sitemap_problems(site, site_url: str) -> list[str]:
    """What is wrong with the built sitemap: every address absolute, under site_url, and a page of the site."""
    text = (site / "sitemap.xml").read_text(encoding="utf-8")
    problems = ["sitemap.xml: `None` in it (no site_url)"] if "None" in text else []
    try:
        urls = ElementTree.fromstring(text).findall("s:url", SITEMAP)
    except ElementTree.ParseError as error:
        return [*problems, f"sitemap.xml: not XML ({error})"]
    if not urls:
        problems.append("sitemap.xml: no <url>")
    for url in urls:
        loc = url.findtext("s:loc", "", SITEMAP)
        links = [(link.get("hreflang"), link.get("href") or "") for link in url.findall("x:link", SITEMAP)]
        if {lang for lang, _ in links} != set(LANGUAGES):
            problems.append(f"sitemap.xml: {loc}: alternates for {sorted(lang for lang, _ in links)}")
        for where, address in [("<loc>", loc)] + [(f"hreflang={lang}", href) for lang, href in links]:
            if not _page_of(site, site_url, address):
                problems.append(f"sitemap.xml: {where} {address!r} is no page under {site_url}")
    if gzip.decompress((site / "sitemap.xml.gz").read_bytes()).decode("utf-8") != text:
        problems.append("sitemap.xml.gz is not sitemap.xml")
    return problems


class _LanguageLinks(HTMLParser):
    """The page's hreflang links: <link rel="alternate"> in the head and the language switch's <a>."""

    def __init__(self):
        super().__init__()
        self.links: list[tuple[str, str, str]] = []  # (tag, hreflang, href)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in {"link", "a"} and "hreflang" in a and (tag == "a" or a.get("rel") == "alternate"):
            self.links.append((tag, a["hreflang"], a.get("href") or ""))


def language_link_problems(site, site_url: str) -> list[str]:
    """Every page's hreflang links, resolved against the page's own address as a browser does: no `None`,
    under site_url, onto a built page; on a page of the site, onto the same page in each language."""
    default = LANGUAGES[0]
    problems = []
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site).as_posix()
        page_url = site_url + rel.removesuffix("index.html")
        parser = _LanguageLinks()
        parser.feed(html.read_text(encoding="utf-8"))
        if {lang for _, lang, _ in parser.links} != set(LANGUAGES):
            problems.append(f"{rel}: hreflang links for {sorted({lang for _, lang, _ in parser.links})}")
        lang = next((code for code in LANGUAGES[1:] if rel.startswith(f"{code}/")), default)
        neutral = rel.removeprefix(f"{lang}/") if lang != default else rel
        for tag, link_lang, href in parser.links:
            target = _page_of(site, site_url, urljoin(page_url, href))
            if "None" in href or target is None:
                problems.append(f"{rel}: <{tag} hreflang={link_lang} href={href!r}> is no page under {site_url}")
            # the 404 page is served at any address: its links lead to each home (test_the_404_page_is_in_the_...)
            elif rel != "404.html":
                expected = site / (neutral if link_lang == default else f"{link_lang}/{neutral}")
                if target != expected:
                    got, want = (p.relative_to(site).as_posix() for p in (target, expected))
                    problems.append(f"{rel}: <{tag} hreflang={link_lang}> leads to {got}, not {want}")
    return problems


def test_the_404_page_is_in_the_default_language_and_leads_to_each_home(built_site):
    """One 404.html serves every missing address: the default language's, not the last language built
    (docs/hooks/not_found.py), its language links leading to each language's home, not to the last page's twins."""
    html = (built_site / "404.html").read_text(encoding="utf-8")
    assert f'<html lang="{LANGUAGES[0]}"' in html
    parser = _LanguageLinks()
    parser.feed(html)
    base = urlsplit(site_url_of_config()).path
    homes = {lang: base + ("" if lang == LANGUAGES[0] else f"{lang}/") for lang in LANGUAGES}
    assert {(lang, href) for _, lang, href in parser.links} == set(homes.items())
    assert not list(built_site.glob("*/404.html"))
    # it cannot know the reader's language: it says what happened in both, and where to go, search included
    article = html.split("<article", 1)[1].split("</article>", 1)[0]
    assert "Page not found" in article and '<p lang="zh">' in article and article.count("<kbd>/</kbd>") == 2
    assert all(f'href="{home}"' in article for home in homes.values())


def test_sitemap_and_language_links_are_addresses_under_site_url(built_site):
    site_url = site_url_of_config()
    assert site_url, "mkdocs.yml sets no site_url: the sitemap's addresses read `None…`"
    assert sitemap_problems(built_site, site_url) == []
    assert language_link_problems(built_site, site_url) == []
    if not os.environ.get("REPO_URL"):  # a local build invents no repository (mkdocs.yml)
        assert 'rel="edit"' not in (built_site / "devices" / "index.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def deployed_build_of_a_broken_copy(tmp_path_factory, built_site):
    """One build for two tests (a build takes minutes): the site as the deploy workflow builds it, for a GitHub
    project page (an address with a path), of a copy whose coverage data links a heading that does not exist.
    MkDocs' strict mode stops the build only once every page of every language is written, so the deployed pages
    are all there to check; the tests make sure that link is the build's only complaint. Started once built_site is
    done, it takes that build's rendered notebooks (the same files, rendered the same; the hooks that link them
    under the address run again).
    (build, site folder, its site_url)"""
    env = deploy_build_env()
    folder = tmp_path_factory.mktemp("deployed")
    copy = copy_of_repo(folder / "repo")
    coverage = copy / "docs" / "data" / "coverage" / "tensors.yml"
    text = coverage.read_text(encoding="utf-8")
    assert text.count("anchor: gpu-memory") == 1
    coverage.write_text(text.replace("anchor: gpu-memory", "anchor: no-such-heading"), encoding="utf-8")
    with pytest.MonkeyPatch.context() as monkeypatch:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        site_url = site_url_of_config()
        build = mkdocs_build(folder / "site", cwd=copy, env=notebooks_rendered())
    assert site_url == "https://example.github.io/pytorch-on-cpu-and-gpu/", f"site_url {site_url!r}, env {env}"
    return build, folder / "site", site_url


def _complaints(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]


def test_a_coverage_link_to_a_missing_heading_fails_the_strict_build(deployed_build_of_a_broken_copy):
    # heading ids are checked by MkDocs' own `validation: {links: {anchors: warn}}` with strict: true
    build, _, _ = deployed_build_of_a_broken_copy
    assert build.returncode != 0
    assert "contains a link 'tensors.md#no-such-heading'" in build.stderr
    assert "does not contain an anchor '#no-such-heading'" in build.stderr


def test_the_deployed_build_links_under_its_address_and_edits_the_page_source(deployed_build_of_a_broken_copy):
    """Built as the deploy workflow builds it, for a GitHub project page (an address with a path): the sitemap
    and the language links stay under that path (the home page's "/" would leave it), and each page's edit
    button opens its own source, docs/zh/<page>.md for a Chinese page."""
    build, site, site_url = deployed_build_of_a_broken_copy
    complaints = _complaints(build.stderr)  # the broken link's, in each language, and nothing else
    assert complaints and all("no-such-heading" in line for line in complaints), build.stderr[-4000:]
    # every notebook of both languages came from built_site's rendering (mkdocs-jupyter logs each one it renders)
    assert "Converting notebook" not in build.stderr, "notebooks rendered again: docs/hooks/notebooks.py's cache"
    assert sitemap_problems(site, site_url) == []
    assert language_link_problems(site, site_url) == []

    repo = "https://github.com/example/pytorch-on-cpu-and-gpu"
    edit = repo + "/edit/main/"
    wrong = []
    for lang in LANGUAGES:
        for page in pages(lang):
            stem = page.name.removesuffix(".md")
            served = (site if lang == LANGUAGES[0] else site / lang) / ("" if stem == "index" else stem) / "index.html"
            found = re.findall(r'<a href="([^"]*)"[^>]*rel="edit"', served.read_text(encoding="utf-8"))
            source = page.path.relative_to(REPO).as_posix()
            if found != [edit + source]:
                wrong.append(f"{served.relative_to(site)}: edit links {found}, not {edit + source}")
    assert not wrong
    for home in (site / "index.html", site / "zh" / "index.html"):  # Home's clone command, ready to copy
        text = html_text.unescape(re.sub(r"<[^>]+>", "", home.read_text(encoding="utf-8")))
        assert f"git clone {repo}.git\ncd pytorch-on-cpu-and-gpu\n" in text, home
    header = (site / "zh" / "devices" / "index.html").read_text(encoding="utf-8")
    assert f'href="{repo}"' in header
    # a plain link: Material's "source" component would fetch the repository's facts from api.github.com
    assert 'data-md-component="source"' not in header


def test_home_clone_command_is_copyable_in_a_local_build(built_site):
    """A build given no repository address (REPO_URL unset) still shows Home's "Run it yourself" command ready to
    copy, with no `<placeholder>`: a clone of the checkout's `origin`, or `cd` to the checkout the site was built
    from (docs/hooks/page_text.py). The deploy's clone command: test_the_deployed_build_links_under_its_address..."""
    origin = subprocess.run(["git", "-C", str(REPO), "remote", "get-url", "origin"], capture_output=True, text=True)
    for home in (built_site / "index.html", built_site / "zh" / "index.html"):
        text = html_text.unescape(re.sub(r"<[^>]+>", "", home.read_text(encoding="utf-8")))
        assert not re.search(r"git clone <|cd <", text), f"{home}: a placeholder in the clone command"
        if origin.returncode == 0 and origin.stdout.strip():
            assert "\ngit clone " in text, home
        else:
            assert re.search(r"\ncd /\S+\nmake serve|\ncd /\S+\n#", text), home


@pytest.mark.parametrize("bare", [False, True], ids=["checkout", "bare"])
def test_a_clone_command_of_a_local_origin_clones_it(tmp_path, bare):
    """A local build whose `origin` is a path (a clone of a clone) shows a clone command that works: no `.git`
    appended to a checkout's path (`fatal: repository '…main.git' does not exist`), a bare repository's kept."""
    import page_text  # docs/hooks/page_text.py

    origin, reader = tmp_path / ("main.git" if bare else "main"), tmp_path / "reader"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", *(["--bare"] if bare else []), str(origin)], check=True)
    reader.mkdir()
    clone, cd = page_text.clone_command(str(origin)).splitlines()
    run = subprocess.run(clone.split(), cwd=reader, capture_output=True, text=True)
    assert run.returncode == 0, f"{clone}: {run.stderr}"
    assert cd == "cd main" and (reader / "main").is_dir()


def test_a_missing_snippet_stops_the_build():
    # the include check is pymdownx.snippets' check_paths, as configured in mkdocs.yml
    with pytest.raises(SnippetMissingError, match=r"no_such_snippet\.py"):
        expand_includes('--8<-- "snippets/devices/no_such_snippet.py"\n')


def test_a_malformed_data_file_stops_the_build_with_one_line(tmp_path):
    """The one build of a broken copy: a hook's PluginError ends `mkdocs build` with one line naming the file
    and the field, and no traceback (each data file's own check is tested by calling its loader)."""
    copy = copy_of_repo(tmp_path / "repo")
    data = copy / "docs" / "data" / "comments" / "zh" / "devices.yml"
    data.write_text(data.read_text(encoding="utf-8") + "an unused key: ''\n", encoding="utf-8")
    result = mkdocs_build(tmp_path / "site", cwd=copy)
    assert result.returncode != 0
    assert "docs/data/comments/zh/devices.yml: field 'an unused key'" in result.stderr
    assert "Traceback" not in result.stderr


# the files the search reads at build time, broken: (the module's name for it, its text, what the one line says)
BROKEN_SEARCH_DATA = {
    "search rules, not YAML": ("SEARCH_RULES", "zh:\n  stop_words: [的\n",
                               r"^docs/data/search\.yml: not valid YAML \(.*line 3"),
    # a variant list written as one string
    "terms, a variant not in a list": ("TERMS", "zh:\n  轮: 周期\n",
                                       r"^terms\.yml: field 'zh\.轮': '周期' is not of type 'array'$"),
}


@pytest.mark.parametrize("case", BROKEN_SEARCH_DATA)
def test_malformed_search_data_stops_the_build_with_one_line(case, tmp_path, monkeypatch):
    name, text, message = BROKEN_SEARCH_DATA[case]
    broken = tmp_path / getattr(search_index, name).name
    broken.write_text(text, encoding="utf-8")
    monkeypatch.setattr(search_index, name, broken)
    with pytest.raises(PluginError, match=message):
        search_index.query_rules()  # which reads both


def test_malformed_section_keywords_stop_the_build_with_one_line(tmp_path, monkeypatch):
    """docs/data/section_keywords.yml with one section's words written as a string, then naming a section that
    the page lacks (an anchor renamed): each is one PluginError line naming the field."""
    broken = tmp_path / "section_keywords.yml"
    broken.write_text("zh:\n  devices.md:\n    which-gpu: 显卡型号\n", encoding="utf-8")
    monkeypatch.setattr(search_index, "SECTION_KEYWORDS", broken)
    with pytest.raises(PluginError, match=r"^section_keywords\.yml: field 'zh\.devices\.md\.which-gpu': "
                                          r"'显卡型号' is not of type 'array'$"):
        search_index.section_keywords()
    docs = [{"location": "zh/devices/#which-gpu", "lang": "zh", "text": ""}]
    with pytest.raises(PluginError, match=r"^docs/data/section_keywords\.yml: field 'zh\.devices\.md\.which-gpus': "
                                          r"docs/zh/devices\.md has no section #which-gpus$"):
        search_index.add_section_keywords(docs, {"zh": {"devices.md": {"which-gpus": ["显卡型号"]}}})
    search_index.add_section_keywords(docs, {"zh": {"devices.md": {"which-gpu": ["显卡型号", "GPU 型号"]}}})
    assert docs[0]["section_keywords"] == "显卡 型号 GPU"  # cut as the text is, each word once


@pytest.mark.every_page
def test_ruff_is_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "snippets", "tests", "docs/hooks"],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr




@pytest.mark.every_page
def test_every_shown_output_is_asserted():
    """A `text` fence shows an output: it must be attached to the block before it as its expected output."""
    loose = [
        f"{page.path.relative_to(REPO)} {block.label}"
        for lang in LANGUAGES
        for page in pages(lang)
        for block in page_blocks(page.path)
        if block.raw.syntax == "text"
    ]
    assert not loose


@pytest.mark.every_page
def test_gpu_blocks_sit_inside_an_admonition():
    """Readers must see that a block needs a GPU: its marker lives inside a neutral `!!! note` that says so."""
    marker = re.compile(r"<!--\s*pytest\.mark\.(cuda|multi_gpu)\s*-->")
    titles = {
        "en": {"cuda": "Needs a CUDA GPU", "multi_gpu": "Needs two or more CUDA GPUs"},
        "zh": {"cuda": "需要 CUDA GPU", "multi_gpu": "需要两块或更多 CUDA GPU"},
    }
    bare = []
    for lang in LANGUAGES:
        for page in pages(lang):
            lines = page.text().splitlines()
            for i, line in enumerate(lines):
                found = marker.search(line)
                if not found:
                    continue
                opener = next((ln for ln in reversed(lines[:i]) if ln.strip() and not ln.startswith("    ")), "")
                expected = f'!!! note "{titles[lang][found.group(1)]}"'
                if not (line.startswith("    ") and opener.strip() == expected):
                    bare.append(f"{page.path.relative_to(REPO)}:{i + 1}: {opener.strip()!r}, not {expected!r}")
    assert not bare


def test_search_puts_the_glossary_s_term_for_each_plain_variant():
    """docs/data/terms.yml's variants that are words reach the search as words to replace; those written as
    patterns do not (a reader does not type a lookbehind)."""
    variants = search_index.term_variants()
    assert variants["zh"]["梯度检查点"] == "激活重计算"
    assert variants["en"]["input pipeline"] == "data pipeline"
    patterns = [v for words in yaml.safe_load(search_index.TERMS.read_text(encoding="utf-8")).values()
                for vs in words.values() for v in vs if not search_index.PLAIN.fullmatch(v)]
    assert patterns and not {v.lower() for v in patterns} & {v for vs in variants.values() for v in vs}
    assert search_index.query_rules()["zh"]["variants"] == variants["zh"]
