"""The real MNIST files for offline tests: decompressed from ../shared/data/mnist into data/MNIST/raw.

Pages run `python snippets/mnist/train.py` with its default `--data-dir data`; torchvision then finds
the files and downloads nothing. data/ is git-ignored: MNIST is never committed.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent  # not site_pages': tools/gpu_job.py runs without mkdocs

SHARED_MNIST = REPO.parent / "shared" / "data" / "mnist" / "MNIST" / "raw"
CARRIED_MNIST = REPO / ".mnist" / "MNIST" / "raw"  # a git-ignored copy, for a GPU box where ../shared does not travel


def ensure_local_mnist(root: Path = REPO / "data") -> Path | None:
    """Decompress the shared .gz files into root/MNIST/raw once; None when no copy is at hand."""
    source = next((d for d in (SHARED_MNIST, CARRIED_MNIST) if d.is_dir()), None)
    raw = root / "MNIST" / "raw"
    if source is None:
        return root if raw.is_dir() and any(raw.iterdir()) else None
    raw.mkdir(parents=True, exist_ok=True)
    for gz in sorted(source.glob("*.gz")):
        if not (target := raw / gz.name.removesuffix(".gz")).exists():
            part = target.with_suffix(".part")  # renamed when complete: an interrupted copy is never taken for data
            with gzip.open(gz, "rb") as src, open(part, "wb") as dst:
                shutil.copyfileobj(src, dst)
            part.replace(target)
    return root
