"""What docs/{en,zh}/cuda-graphs.md (CUDA graphs) says of torch.cuda.graph, make_graphed_callables and
"reduce-overhead", checked in the installed PyTorch (the page's blocks need a CUDA GPU)."""

from __future__ import annotations

import inspect
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
    doc = " ".join(torch.cuda.graph.__doc__.split())
    assert "If not supplied, ``graph`` sets its own internal side stream as the current stream in the context." in doc
    assert callable(torch.cuda.CUDAGraph.pool) and callable(torch.cuda.CUDAGraph.replay)
    for lang in LANGUAGES:
        assert "`torch.cuda.graph(g2, pool=g1.pool())`" in _graphs_page(lang), lang


def test_make_graphed_callables_asks_what_the_page_lists():
    params = inspect.signature(torch.cuda.make_graphed_callables).parameters
    assert list(params)[:2] == ["callables", "sample_args"] and params["num_warmup_iters"].default == 3
    doc = " ".join(torch.cuda.make_graphed_callables.__doc__.split())
    for rule in (
        "``sample_args`` for each callable must contain only Tensors.",
        "The ``requires_grad`` state of each Tensor in ``sample_args`` must match the state that's expected",
        "you must pass its arguments in the same order and format they appeared in that callable's ``sample_args``",
        "must not have module hooks registered on them at the time they are passed. However, registering hooks "
        "on modules *after* passing them through :func:`~torch.cuda.make_graphed_callables` is allowed.",
        "only parameters may be trainable.",
        "you may not add or remove any of that Module's parameters or buffers.",
        "The context manager `torch.cuda.amp.autocast()` must have `cache_enabled=False`.",
        "their order in the tuple must be the same order they'll run in the live workload.",
        "If you pass a tuple of several callables, their captures will use the same memory pool.",
    ):
        assert rule in doc, rule
    # autocast with its cache on is refused before any CUDA work
    with (
        mock.patch("torch.is_autocast_enabled", return_value=True),
        mock.patch("torch.is_autocast_cache_enabled", return_value=True),
        pytest.raises(RuntimeError, match="does not support the autocast caching"),
    ):
        torch.cuda.make_graphed_callables(nn.Linear(2, 2), (torch.zeros(1, 2),))
    # the graphed forward runs only in the mode it was captured in; in the other, the module's own forward
    source = inspect.getsource(torch.cuda.make_graphed_callables)
    # (torch 2.15 holds the module weakly and rebinds its original forward per call; 2.14 read func.training)
    assert "if module.training == graph_training_state:" in source
    assert "return orig_call(module, *user_args, **user_kwargs)" in source


def test_reduce_overhead_is_what_the_page_says():
    import torch._inductor.config as inductor_config
    from torch._inductor import cudagraph_trees, cudagraph_utils

    doc = " ".join(torch.compile.__doc__.split())
    assert ('"reduce-overhead" is a mode that reduces the overhead of python with CUDA graphs, '
            "useful for small batches.") in doc
    assert "Reduction of overhead can come at the cost of more memory usage" in doc
    assert "we only reduce overhead for CUDA only graphs which do not mutate inputs" in doc
    assert inductor_config.triton.cudagraph_trees is True
    # a graph per shape, and a warning past 8 of them
    assert inductor_config.triton.cudagraph_skip_dynamic_graphs is False
    config_source = inspect.getsource(inductor_config)
    assert "If False, we will re-record a graph for each unique set of shape inputs" in config_source
    assert inductor_config.triton.cudagraph_dynamic_shape_warn_limit == 8
    # the skip message, logged by the "cudagraphs" artifact (TORCH_LOGS=cudagraphs)
    assert 'return f"skipping cudagraphs due to {reason}"' in inspect.getsource(cudagraph_utils)
    assert 'getArtifactLogger(__name__, "cudagraphs")' in inspect.getsource(cudagraph_utils)
    assert "accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run" in (
        inspect.getsource(cudagraph_trees))
    assert "Indicates that a new iteration of inference or training is about to begin." in (
        torch.compiler.cudagraph_mark_step_begin.__doc__)
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
