"""The install page's promises (docs/{en,zh}/install.md).

Its install lines are one copyable line each, from an index whose use a source states (for PyTorch 2.14: no 2.15
release matrix is cited yet; the PyPI package of 2.15.0 is the CUDA 13.2 build); its GPU
tables are PyTorch 2.15.0's own table of its releases, applied by the page's rule; and every message it quotes is
what the installed torch or its CUDA runtime says. Its code blocks and their outputs run as every page's do.
"""

from __future__ import annotations

import ctypes
import importlib.util
import inspect
import re
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import torch

from site_pages import DOCS, LANGUAGES, REPO, fences
from snippet_runs import run_code, run_snippet
from test_quickstart import section_ids

PAGE = "install.md"
ARCH_SUPPORT = "snippets/install/arch_support.py"
TORCH_LIB = Path(torch.__file__).parent / "lib"

# The indexes the install lines may name, each with where its use is stated (for 2.14, but cu132's for 2.15 too: the
# PyPI package of 2.15.0 is that build, test_the_cuda_13_line_names_the_build_this_site_pins).
INDEXES = {
    "cu132": "https://github.com/googlecolab/colabtools/issues/6093 (2.14 release: cu132 on PyTorch's index)",
    "cu130": "https://github.com/pytorch/pytorch/issues/190355 (CUDA 13.0 stable, on download.pytorch.org)",
    "cu126": "https://github.com/googlecolab/colabtools/issues/6093 (2.14 release: cu126 and cu132 builds)",
    "cpu": "https://github.com/googlecolab/colabtools/issues/5982 (the CPU-only build on download.pytorch.org)",
    "rocm7.14": "https://github.com/pytorch/pytorch/pull/194367 (2.14 release matrix: ROCm 7.14)",
    "xpu": "https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html (stable Intel GPU wheels)",
}
# The newest CUDA major each driver branch from here on runs, by NVIDIA's minor version compatibility
# (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html, table 1).
DRIVER_BRANCH = {"12": 525, "13": 580}
# The index of each CUDA version of PyTorch 2.15.0's table of its releases (torch.cuda.PYTORCH_RELEASES_CODE_CC).
CUDA_OF_INDEX = {"cu126": "12.6", "cu130": "13.0", "cu132": "13.2"}
# The quoted warnings come from a GPU of this capability and name, pretended.
PRETENDED_GPUS = {"p100": ((6, 0), "Tesla P100-PCIE-16GB"), "k80": ((3, 7), "Tesla K80")}


def text(lang: str) -> str:
    return (DOCS / lang / PAGE).read_text(encoding="utf-8")


def section(lang: str, anchor: str) -> str:
    """The page's text from the heading with this id to the next heading of its level."""
    return text(lang).split(f"{{ #{anchor} }}", 1)[1].split("\n## ", 1)[0]


def install_lines(lang: str) -> list[tuple[str, str]]:
    """(tab title, code) of each content tab of the install section and the one fence it holds."""
    parts = re.split(r'^=== "(.+)"\n', section(lang, "install-lines"), flags=re.M)
    tabs = []
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        tab = "\n".join(line for line in body.splitlines() if line.startswith("    ") or not line.strip())
        found = fences(textwrap.dedent(tab))
        assert len(found) == 1, f"{lang}: tab {title!r} holds {len(found)} fences, not one"
        assert found[0].info == "shell", f"{lang}: tab {title!r}: a {found[0].info!r} fence (shell: never run)"
        tabs.append((title, found[0].code))
    return tabs


def requirement_pins() -> dict[str, str]:
    lines = (REPO / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return dict(ln.split("==", 1) for ln in lines if "==" in ln and not ln.startswith("#"))


def quoted(snippet: str) -> None:
    for lang in LANGUAGES:
        assert f"`{snippet}`" in text(lang), f"{lang} page does not quote {snippet!r}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_install_line_is_one_line_without_a_prompt_from_a_named_index(lang):
    tabs = install_lines(lang)
    assert len(tabs) == 6, [title for title, _ in tabs]  # CUDA 13, CUDA 12.6, CPU, ROCm, Apple, Intel
    pins = requirement_pins()
    for title, code in tabs:
        line = code.strip()
        assert "\n" not in line and "\\" not in line, f"{title}: more than one line"
        assert line.startswith("pip install torch"), f"{title}: {line!r} (a prompt, or another tool)"
        assert len(line) <= 80, f"{title}: {len(line)} characters, wider than a code block at 1280 px"
        assert "--extra-index-url" not in line, title  # adds PyPI's newer versions to the choice
        for name, version in re.findall(r"([\w-]+)==([\w.+]+)", line):
            assert pins.get(name) == version, f"{title}: pins {name}=={version}, not the site's pin"
        index = re.search(r"--index-url https://download\.pytorch\.org/whl/(\S+)$", line)
        assert index is None or index[1] in INDEXES, f"{title}: an index no source was checked for: {line}"
        assert index is not None or line == "pip install torch", title


def test_both_languages_show_the_same_install_lines():
    assert [code for _, code in install_lines("zh")] == [code for _, code in install_lines("en")]


def test_the_cuda_13_line_names_the_build_this_site_pins():
    # the first tab is the pinned build: torch 2.15.0, CUDA 13.2 (the PyPI wheel on Linux; 2.14.1's was CUDA 13.0)
    assert torch.version.cuda is not None, "the pinned torch is a CUDA build"
    title, code = install_lines("en")[0]
    assert title == "CUDA 13"
    assert code.strip().endswith("/whl/cu" + torch.version.cuda.replace(".", ""))


def test_every_pin_on_the_page_is_the_sites_pin():
    pins = requirement_pins()
    for lang in LANGUAGES:
        for fence in fences(text(lang)):
            if fence.info in {"shell", "console"}:
                for name, version in re.findall(r"\b(torch|torchvision)==([\w.+]+)", fence.code):
                    assert pins[name] == version, f"{lang}: {name}=={version} in {fence.code!r}"


def table_rows(lang: str, anchor: str, first_cell: str) -> list[list[str]]:
    """The cells of each row of the first table after the heading whose header starts with first_cell."""
    lines = section(lang, anchor).splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"| {first_cell} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def release_codes(cuda: str) -> set[int]:
    return torch.cuda.PYTORCH_RELEASES_CODE_CC[cuda]["x86_64"]


def capabilities(cell: str) -> list[int]:
    return [int(major) * 10 + int(minor) for major, minor in re.findall(r"(\d+)\.(\d)", cell)]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_build_table_is_pytorchs_own_table_of_its_releases(lang):
    rows = table_rows(lang, "which-gpus", {"en": "index", "zh": "索引"}[lang])
    seen = set()
    for index_cell, codes_cell, driver_cell in rows:
        for index in re.findall(r"`(cu\d+)`", index_cell):
            cuda = CUDA_OF_INDEX[index]
            assert set(capabilities(codes_cell)) == release_codes(cuda), f"{lang}: {index}"
            assert re.findall(r"\d{3}", driver_cell) == [str(DRIVER_BRANCH[cuda.split(".")[0]])], f"{lang}: {index}"
            seen.add(index)
    assert seen == set(CUDA_OF_INDEX)


def test_the_installed_build_is_the_one_its_table_lists():
    codes = [int(re.sub(r"\D", "", arch)) for arch in torch.cuda.get_arch_list()]
    assert set(codes) == release_codes(torch.version.cuda)


def load_arch_support():
    spec = importlib.util.spec_from_file_location("arch_support", REPO / ARCH_SUPPORT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its work sits under `if __name__ == "__main__"`
    return module


# discrete GPUs' capabilities, Kepler to Blackwell (the Jetson modules' 5.3, 6.2, 7.2, 8.7 and 10.1 aside)
GPU_CAPABILITIES = [37, 50, 52, 60, 61, 70, 75, 80, 86, 89, 90, 100, 103, 120, 121]


def test_the_snippets_rule_is_pytorchs_for_every_discrete_gpu():
    runs_on = load_arch_support().runs_on
    for code in sorted(set().union(*(release_codes(cuda) for cuda in CUDA_OF_INDEX.values()))):
        for gpu in GPU_CAPABILITIES:
            ours = runs_on(f"sm_{code}", gpu // 10, gpu % 10)
            assert ours == torch.cuda._code_compatible_with_device(gpu, code), (code, gpu)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_gpu_table_applies_the_rule_to_each_builds_list(lang):
    runs_on = load_arch_support().runs_on
    yes, no = {"en": ("yes", "no"), "zh": ("是", "否")}[lang]
    rows = table_rows(lang, "which-gpus", {"en": "compute capability", "zh": "计算能力"}[lang])
    assert len(rows) >= 8
    for cells in rows:
        for gpu in capabilities(cells[0]):
            for cuda, shown in (("12.6", cells[3]), ("13.0", cells[4]), ("13.2", cells[4])):
                fits = any(runs_on(f"sm_{code}", gpu // 10, gpu % 10) for code in release_codes(cuda))
                assert shown == (yes if fits else no), f"{lang}: capability {gpu / 10} under CUDA {cuda}"


def test_a_capability_that_is_not_one_is_refused_in_one_line():
    run = run_snippet(ARCH_SUPPORT, "eight").result(timeout=600)
    assert repr(run.returncode) == "1"  # sys.exit(message)'s status, as a number (the GPU job writes it to .rc)
    assert run.stdout == ""
    assert run.stderr.strip() == "not a compute capability: 'eight' (write it like 8.6)"


@pytest.mark.no_cuda
def test_without_a_gpu_or_capabilities_the_script_says_what_to_give_it():
    run = run_snippet(ARCH_SUPPORT).result(timeout=600)
    assert run.returncode != 0
    assert run.stderr.strip() == "no CUDA GPU here: name capabilities instead, such as 8.6"


PRETEND_AND_WARN = """
    import sys
    import warnings
    import torch.cuda

    major, minor, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    torch.cuda.device_count = lambda: 1
    torch.cuda.get_device_capability = lambda device=None: (major, minor)
    torch.cuda.get_device_name = lambda device=None: name
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda._check_capability()  # the two checks PyTorch runs when CUDA starts
        torch.cuda._check_cubins()
    for warning in caught:
        print(str(warning.message).strip())
        print("----")
"""


def warnings_for(gpu: str) -> list[list[str]]:
    (major, minor), name = PRETENDED_GPUS[gpu]
    run = run_code(textwrap.dedent(PRETEND_AND_WARN), str(major), str(minor), name)
    assert run.returncode == 0, run.stderr
    return [block.strip().splitlines() for block in run.stdout.split("----") if block.strip()]


def test_the_warnings_quoted_for_a_p100_are_what_the_pinned_torch_says():
    capability, cubins = warnings_for("p100")
    quoted(capability[0])
    quoted(capability[-1].strip())
    quoted(cubins[0])
    quoted(cubins[1])


def test_for_a_gpu_no_build_supports_the_warning_says_so():
    capability, _ = warnings_for("k80")
    assert capability[-1].startswith("No published PyTorch CUDA builds for release")


BLACKWELL_UNDER_CU126 = """
    import warnings
    import torch.cuda

    torch.cuda.get_device_name = lambda device=None: "NVIDIA GeForce RTX 5090"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda._warn_unsupported_code(0, 120, sorted(torch.cuda.PYTORCH_RELEASES_CODE_CC["12.6"]["x86_64"]))
    print(caught[0].message)
"""


def test_the_warning_for_a_blackwell_gpu_also_names_a_build_pytorch_does_not_make():
    # install.md#sm-not-compatible: the release table in torch/cuda/__init__.py (2.15.0 as 2.14.1) has a 13.4
    # row that the 2.14 release matrix lacks (12.6, 13.0, 13.2: CUDA_OF_INDEX and its sources above), so for an
    # RTX 5090 (12.0) under cu126 the warning names cu130, cu132 and cu134; the page sends Blackwell to the first two.
    assert "13.4" in torch.cuda.PYTORCH_RELEASES_CODE_CC and "cu134" not in CUDA_OF_INDEX
    run = run_code(textwrap.dedent(BLACKWELL_UNDER_CU126))
    assert run.returncode == 0, run.stderr
    named = re.findall(r"--index-url \S+/whl/(cu\d+)", run.stdout)
    assert named == ["cu130", "cu132", "cu134"]
    for lang in LANGUAGES:
        shown = section(lang, "sm-not-compatible")
        assert "`cu130`" in shown and "`cu132`" in shown and "`https://download.pytorch.org/whl/cu134`" in shown, lang


def cuda_runtime() -> ctypes.CDLL:
    """The CUDA runtime library that this torch loaded (libtorch_cuda links it)."""
    maps = Path("/proc/self/maps")
    loaded = re.findall(r"(/\S*libcudart\.so[.\d]*)$", maps.read_text(), re.M) if maps.is_file() else []
    if not loaded:
        pytest.skip("no CUDA runtime library loaded by this torch")
    lib = ctypes.CDLL(loaded[0])
    lib.cudaGetErrorString.restype = lib.cudaGetErrorName.restype = ctypes.c_char_p
    return lib


@pytest.mark.parametrize(("code", "name"), [(209, "cudaErrorNoKernelImageForDevice"),
                                            (35, "cudaErrorInsufficientDriver")])
def test_the_cuda_errors_quoted_are_the_runtimes_own_words(code, name):
    lib = cuda_runtime()
    assert lib.cudaGetErrorName(code).decode() == name
    quoted(name)
    description = lib.cudaGetErrorString(code).decode()
    quoted(f"CUDA error: {description}" if code == 209 else description)


def test_the_driver_too_old_message_is_in_the_installed_torch():
    library = (TORCH_LIB / "libc10_cuda.so").read_bytes()
    first, rest = "The NVIDIA driver on your system is too old (found version ", "). Please update your GPU driver"
    assert first.encode() in library and rest.encode() in library
    assert b"CUDA initialization: " in library  # is_available() warns with it, then answers False
    quoted(f"{first}12080{rest}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux packages' dependencies")
def test_the_cuda_package_brings_its_own_cuda_runtime():
    assert any("cudart" in requirement for requirement in metadata.requires("torch"))


def test_collect_env_reads_its_cuda_runtime_version_from_nvcc():
    # the page: its "CUDA runtime version" line is the nvcc on the PATH, not the runtime PyTorch uses
    import torch.utils.collect_env as collect_env

    assert '"nvcc --version"' in inspect.getsource(collect_env.get_running_cuda_version)


def test_both_languages_give_the_install_page_the_same_section_ids():
    ids = section_ids(DOCS / "en" / PAGE, 2)
    assert section_ids(DOCS / "zh" / PAGE, 2) == ids
    assert {"install-lines", "which-gpus", "driver", "check", "collect-env", "colab-kaggle", "wsl2", "containers",
            "no-kernel-image", "driver-too-old", "sm-not-compatible"} <= set(ids)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_troubleshooting_and_home_lead_to_the_install_page(lang):
    troubleshooting = (DOCS / lang / "troubleshooting.md").read_text(encoding="utf-8")
    for anchor in ("no-kernel-image", "driver-too-old", "sm-not-compatible"):
        assert f"](install.md#{anchor})" in troubleshooting, anchor
    assert "](install.md)" in (DOCS / lang / "index.md").read_text(encoding="utf-8")


def test_collect_env_warns_that_it_was_imported_already():
    # the page: 2.15.0's `python -m torch.utils.collect_env` prints runpy's RuntimeWarning, and its report
    done = subprocess.run([sys.executable, "-m", "torch.utils.collect_env"], capture_output=True, text=True,
                          cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "RuntimeWarning: 'torch.utils.collect_env' found in sys.modules" in done.stderr
    assert done.stdout.startswith("Collecting environment information...\nPyTorch version: ")
