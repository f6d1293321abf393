"""What the reproducibility page (docs/{en,zh}/reproducibility.md) teaches, asserted on the installed PyTorch. The
page's blocks run as tests of their own (their outputs are compared); these check the claims its prose makes
about PyTorch 2.15.0: what one seed seeds, which generators the devices use, what deterministic mode and
CUBLAS_WORKSPACE_CONFIG do now, and how DataLoader workers are seeded.
"""

from __future__ import annotations

import mmap
import random
import runpy
from pathlib import Path
from unittest import mock

import pytest
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

from site_pages import DOCS, SNIPPETS

TORCH = Path(torch.__file__).parent


@pytest.fixture
def restore_rng():
    """The tests seed the global generators; give the rest of the session back what it had."""
    cpu, py = torch.get_rng_state(), random.getstate()
    yield
    torch.set_rng_state(cpu)
    random.setstate(py)


def test_the_opening_cites_the_note_as_steps_not_as_a_promise():
    # docs.pytorch.org/docs/stable/notes/randomness.html: "Completely reproducible results are not guaranteed
    # across PyTorch releases, individual commits, or different platforms" ... "some steps you can take to limit
    # the number of sources of nondeterministic behavior for a specific platform, device, and PyTorch release"
    note = "(https://docs.pytorch.org/docs/stable/notes/randomness.html)"
    for lang, steps, promise in (("en", "on one platform, device and release", "promises that only"),
                                 ("zh", "在同一平台、同一设备、同一版本上", "上这样承诺")):
        page = (DOCS / lang / "reproducibility.md").read_text(encoding="utf-8")
        opening = " ".join(page[page.index("\n\n", page.index('!!! abstract')) : page.index("\n## ")].split())
        assert note in opening and steps in opening.replace("\n", ""), lang
        assert promise not in page, lang


# ---- seeds -------------------------------------------------------------------------------------------------


def test_manual_seed_seeds_every_device_type_and_returns_the_cpu_generator(restore_rng):
    with (mock.patch("torch.cuda.manual_seed_all") as cuda, mock.patch("torch.mps.manual_seed") as mps,
          mock.patch("torch.xpu.manual_seed_all") as xpu):
        generator = torch.manual_seed(7)
    for seeded in (cuda, mps, xpu):
        seeded.assert_called_once_with(7)
    assert generator is torch.default_generator and torch.initial_seed() == 7


def test_manual_seed_leaves_pythons_generator_alone(restore_rng):
    state = random.getstate()
    torch.manual_seed(0)
    assert random.getstate() == state  # the page: seed `random` (and NumPy) yourself


def test_the_cpu_and_cuda_generators_are_different_algorithms():
    # the page names the generators from the headers of the installed PyTorch
    include = TORCH / "include" / "ATen"
    assert "at::mt19937 engine_;" in (include / "CPUGeneratorImpl.h").read_text()
    assert "Philox" in (include / "cuda" / "CUDAGeneratorImpl.h").read_text()


# ---- deterministic mode and cuBLAS -------------------------------------------------------------------------


def _library_contains(path: Path, needle: bytes) -> bool:
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        return data.find(needle) != -1


def test_the_pinned_torch_no_longer_asks_for_cublas_workspace_config():
    # Older releases raised "... because it uses CuBLAS and you have CUDA >= 10.2 ..." from Context.cpp
    # (libtorch_cpu); pytorch/pytorch#161749 removed the check. The message is gone from every library.
    libraries = sorted((TORCH / "lib").glob("libtorch*.so")) + sorted((TORCH / "lib").glob("libc10*.so"))
    assert any(p.name == "libtorch_cpu.so" for p in libraries)
    assert [p.name for p in libraries if _library_contains(p, b"uses CuBLAS and you have CUDA")] == []
    assert "CUBLAS_WORKSPACE_CONFIG" not in torch.use_deterministic_algorithms.__doc__
    # the variable still sizes the workspace, and so does the function the page names; torch 2.15: the
    # per-handle-and-stream cache is opt-in, and PyTorch's own operations bind their own workspace (the library's
    # strings and the docstring: tests/data/citations.yml)
    assert callable(torch.backends.cuda.cublas_workspace_size)
    for lang in ("en", "zh"):
        assert "`TORCH_CUBLAS_WORKSPACE_CACHE=1`" in (DOCS / lang / "reproducibility.md").read_text(encoding="utf-8")


def test_the_pages_examples_of_both_kinds_are_in_the_docstring():
    doc = " ".join(torch.use_deterministic_algorithms.__doc__.split())
    act, throw = doc.split("operations will act deterministically")[1].split("operations will throw a")
    for name in ("torch.index_add` when called on CUDA tensor", "torch.Tensor.scatter_add_` when called on a CUDA"):
        assert name in act, name
    for name in ("torch.nn.NLLLoss` when called on a CUDA tensor", "torch.nn.AdaptiveAvgPool2d` when attempting",
                 "torch.nn.MaxUnpool1d`"):
        assert name in throw, name


def test_the_reduced_precision_switches_exist_and_are_on():
    matmul = torch.backends.cuda.matmul
    assert matmul.allow_fp16_reduced_precision_reduction is True
    assert matmul.allow_bf16_reduced_precision_reduction is True


def test_assert_close_defaults_are_the_pages():
    from torch.testing._comparison import default_tolerances

    expected = {torch.float32: (1.3e-6, 1e-5), torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
                torch.float64: (1e-7, 1e-7)}
    for dtype, (rtol, atol) in expected.items():
        assert default_tolerances(torch.ones(1, dtype=dtype)) == (rtol, atol), dtype


def test_one_is_lost_next_to_ten_to_the_eight_in_float32():
    big = torch.tensor(1e8)
    assert torch.nextafter(big, torch.tensor(2e8)) - big == 8  # the spacing the page names
    assert big + 1 == big


# ---- DataLoader workers ------------------------------------------------------------------------------------


class _Seeds(Dataset):
    """Each worker reports its id, its seed, torch's seed, and whether `random` started from that seed."""

    def __init__(self):
        self.first_draw = None

    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        if self.first_draw is None:  # this worker's copy, on its first item
            self.first_draw = random.random() == random.Random(info.seed).random()
        return torch.tensor([info.id, info.seed, torch.initial_seed(), self.first_draw])


def _worker_seeds(generator_seed: int) -> list[list[int]]:
    loader = DataLoader(_Seeds(), batch_size=None, num_workers=2,
                        generator=torch.Generator().manual_seed(generator_seed))
    return sorted({tuple(row.tolist()) for row in loader})


def test_each_worker_seeds_torch_and_random_with_the_base_seed_plus_its_id(restore_rng):
    rows = _worker_seeds(0)
    (id0, seed0, torch0, same0), (id1, seed1, torch1, same1) = rows
    assert (id0, id1) == (0, 1) and seed1 == seed0 + 1
    assert (torch0, torch1) == (seed0, seed1)  # torch.initial_seed() in the worker is its seed
    assert same0 and same1  # random was seeded with it too


def test_the_loaders_generator_decides_the_workers_seeds(restore_rng):
    first = _worker_seeds(3)
    torch.rand(100)  # the rest of the program draws from the global generator meanwhile
    assert _worker_seeds(3) == first
    assert _worker_seeds(4) != first


def test_without_worker_init_fn_the_run_does_not_repeat(restore_rng):
    # the page's last sentence: the dataset's own generator, unseeded in the workers, breaks the repeat
    program = runpy.run_path(str(SNIPPETS / "reproducibility" / "reproducible_run.py"))
    assert torch.equal(program["train"](0), program["train"](0))
    program["train"].__globals__["seed_worker"] = lambda worker_id: None  # the name train() looks up
    assert not torch.equal(program["train"](0), program["train"](0))
