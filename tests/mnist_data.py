"""The real MNIST files for offline tests: decompressed from ../shared/data/mnist into data/MNIST/raw.

Pages run `python snippets/mnist/train.py` with its default `--data-dir data`; torchvision then finds
the files and downloads nothing. data/ is git-ignored: MNIST is never committed.
"""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

from site_pages import REPO

SHARED_MNIST = REPO.parent / "shared" / "data" / "mnist" / "MNIST" / "raw"
LOCAL_ROOT = REPO / "data"
# a git-ignored copy of the .gz files, for machines where ../shared does not travel (a GPU box)
CARRIED_MNIST = REPO / ".mnist" / "MNIST" / "raw"


def ensure_local_mnist(root: Path = LOCAL_ROOT) -> Path | None:
    """Decompress the shared .gz files into root/MNIST/raw once; None when no copy is at hand."""
    source = next((d for d in (SHARED_MNIST, CARRIED_MNIST) if d.is_dir()), None)
    raw = root / "MNIST" / "raw"
    if source is None:
        return root if raw.is_dir() and any(raw.iterdir()) else None
    raw.mkdir(parents=True, exist_ok=True)
    for gz in sorted(source.glob("*.gz")):
        target = raw / gz.name.removesuffix(".gz")
        if not target.exists():
            # a private temporary name, then an atomic rename: parallel test workers may do this at once
            part = target.with_name(f"{target.name}.{os.getpid()}.part")
            with gzip.open(gz, "rb") as src, open(part, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.replace(part, target)
    return root
