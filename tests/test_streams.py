"""What docs/{en,zh}/streams.md (CUDA streams) relies on, in the installed PyTorch: its blocks need a GPU, so
the API names and the docstrings the page quotes are checked here."""

from __future__ import annotations

import torch


def test_the_stream_api_the_page_names_is_device_agnostic():
    # the page's blocks need a GPU; what they rely on is checked here, in the installed torch
    assert issubclass(torch.cuda.Stream, torch.Stream)  # the CUDA-only spelling mixes with the generic one
    for name in ("wait_stream", "record_event", "wait_event", "synchronize", "__enter__", "__exit__"):
        assert hasattr(torch.Stream, name), name  # `with stream:` and wait_stream
    for name in ("current_stream", "set_stream"):
        assert callable(getattr(torch.accelerator, name)), name
    # a CPU stream object exists, and `with` switches to it without a GPU
    with torch.Stream(device="cpu") as cpu_stream:
        assert cpu_stream.device == torch.device("cpu")
