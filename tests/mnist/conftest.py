"""Shared by the MNIST page's tests: its scripts importable as they run, a tiny MNIST, and main() as a command."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest
import torch

from site_pages import SNIPPETS

sys.path.insert(0, str(SNIPPETS / "mnist"))  # as when the scripts run: `import train` finds their folder first


@pytest.fixture(scope="session")
def tiny_mnist(tmp_path_factory) -> Path:
    """40 training and 20 test images in DIR/MNIST/raw, in the IDX format of the real files (read, never written)."""
    root = tmp_path_factory.mktemp("tiny_mnist")
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    gen = torch.Generator().manual_seed(1)
    for prefix, n in (("train", 40), ("t10k", 20)):
        images = torch.randint(0, 256, (n, 28, 28), dtype=torch.uint8, generator=gen)
        labels = torch.arange(n, dtype=torch.uint8) % 10
        header = struct.pack(">IIII", 2051, n, 28, 28)  # magic number, count, rows, columns
        (raw / f"{prefix}-images-idx3-ubyte").write_bytes(header + images.numpy().tobytes())
        (raw / f"{prefix}-labels-idx1-ubyte").write_bytes(struct.pack(">II", 2049, n) + labels.numpy().tobytes())
    return root


@pytest.fixture
def run_main(monkeypatch, capsys):
    """main(argv) of train.py or bench.py where it must exit: (exit status, stdout, stderr) as a shell sees them."""

    def run(module, argv: list[str]) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", [f"snippets/mnist/{module.__name__}.py"])  # argparse names the program
        with pytest.raises(SystemExit) as exit_info:
            module.main(argv)
        out, err = capsys.readouterr()
        code = exit_info.value.code
        if isinstance(code, str):  # sys.exit("message") prints it to stderr and exits with 1
            err, code = err + code + "\n", 1
        return code, out, err

    return run
