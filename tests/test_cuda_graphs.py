"""What docs/{en,zh}/cuda-graphs.md (CUDA graphs) says of torch.cuda.graph, make_graphed_callables and
"reduce-overhead", checked in the installed PyTorch (the page's blocks need a CUDA GPU)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from unittest import mock

import pytest
import torch
from torch import nn

from site_pages import DOCS, LANGUAGES

# The page's blocks need a CUDA GPU; what its prose says of the three APIs is checked here, in the installed torch.


def _graphs_page(lang: str) -> str:
    return (DOCS / lang / "cuda-graphs.md").read_text(encoding="utf-8")


def test_torch_cuda_graph_captures_on_a_side_stream_of_its_own_into_a_pool():
    params = inspect.signature(torch.cuda.graph).parameters
    assert list(params)[:4] == ["cuda_graph", "pool", "stream", "capture_error_mode"]
    assert callable(torch.cuda.CUDAGraph.pool) and callable(torch.cuda.CUDAGraph.replay)
    for lang in LANGUAGES:
        assert "`torch.cuda.graph(g2, pool=g1.pool())`" in _graphs_page(lang), lang


def test_make_graphed_callables_asks_what_the_page_lists():
    params = inspect.signature(torch.cuda.make_graphed_callables).parameters
    assert list(params)[:2] == ["callables", "sample_args"] and params["num_warmup_iters"].default == 3
    # the rules its docstring lists, and the mode the graphed forward runs in: tests/data/citations.yml
    # autocast with its cache on is refused before any CUDA work
    with (
        mock.patch("torch.is_autocast_enabled", return_value=True),
        mock.patch("torch.is_autocast_cache_enabled", return_value=True),
        pytest.raises(RuntimeError, match="does not support the autocast caching"),
    ):
        torch.cuda.make_graphed_callables(nn.Linear(2, 2), (torch.zeros(1, 2),))


def test_reduce_overhead_is_what_the_page_says():
    import torch._inductor.config as inductor_config

    # what torch.compile's docstring and Inductor's source say of it: tests/data/citations.yml
    assert inductor_config.triton.cudagraph_trees is True
    # a graph per shape, and a warning past 8 of them
    assert inductor_config.triton.cudagraph_skip_dynamic_graphs is False
    assert inductor_config.triton.cudagraph_dynamic_shape_warn_limit == 8
    for lang in LANGUAGES:
        page = " ".join(_graphs_page(lang).split())
        for quoted in ("`TORCH_LOGS=cudagraphs`", "`skipping cudagraphs due to`",
                       "accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run"):
            assert quoted in page, (lang, quoted)


@pytest.mark.cuda
def test_a_capture_that_makes_the_cpu_wait_fails():
    # in a process of its own: a failed capture can leave CUDA unusable for the rest of the process
    from snippet_runs import run_code

    run = run_code(
        "import torch\n"
        "x = torch.ones(3, device='cuda')\n"
        "g = torch.cuda.CUDAGraph()\n"
        "try:\n"
        "    with torch.cuda.graph(g):\n"
        "        (x * 2).sum().item()\n"
        "except RuntimeError as error:\n"
        "    print('refused:', type(error).__name__)\n"
    )
    assert run.stdout.startswith("refused:"), run.stdout + run.stderr


def test_graphs_are_not_cuda_only_in_2_15():
    # cuda-graphs.md (opening): 2.15.0 has graphs for Intel GPUs and a device-agnostic accelerator graph
    # (torch.Graph is TorchScript's IR graph, not this one)
    import torch.accelerator.graphs
    import torch.xpu.graphs

    assert torch.xpu.graph is torch.xpu.graphs.graph
    assert torch.xpu.make_graphed_callables is torch.xpu.graphs.make_graphed_callables
    assert torch.accelerator.Graph is torch.accelerator.graphs.Graph
    # (its docstring: tests/data/citations.yml)
    for lang in LANGUAGES:
        opening = _graphs_page(lang).split("\n## ")[0]
        assert all(f"`{name}`" in opening for name in
                   ("torch.xpu.graph", "torch.xpu.make_graphed_callables", "torch.accelerator.Graph")), lang
        assert "CUDA only" not in opening and "只能用于 CUDA" not in opening, lang


def test_the_page_gives_the_warm_up_iterations_ddp_needs():
    # the docstring's 11 is in tests/data/citations.yml
    for lang in LANGUAGES:
        section = _graphs_page(lang).split("{ #graphed-callables }")[1].split("\n## ")[0]
        assert "`DistributedDataParallel`" in section and "11" in section, lang


def test_the_cudagraphs_skip_reason_prints_without_torch_logs():
    # cuda-graphs.md#reduce-overhead: the skip is logged at warning level on the "cudagraphs" artifact, which
    # prints with TORCH_LOGS unset
    code = ("from torch._inductor.cudagraph_utils import log_cudagraph_skip_and_bump_counter as skip\n"
            "skip('skipping cudagraphs due to a test')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={k: v for k, v in os.environ.items() if k != "TORCH_LOGS"})
    assert done.returncode == 0, done.stderr
    assert "[__cudagraphs] skipping cudagraphs due to a test" in done.stderr
