"""Show the caching allocator's settings as PyTorch read them from
PYTORCH_ALLOC_CONF (or from the older PYTORCH_CUDA_ALLOC_CONF):

PYTORCH_ALLOC_CONF=expandable_segments:True python alloc_conf.py
"""

import sys
import textwrap

import torch

MiB = 2**20
try:
    # Every memory snapshot records the settings; reading them needs no GPU.
    settings = torch.cuda.memory._snapshot()["allocator_settings"]
except ValueError as err:  # an unknown option, or a value out of range
    sys.exit(textwrap.fill(f"PYTORCH_ALLOC_CONF: {err}", width=80))

split = settings["max_split_size"]
print("expandable_segments:", settings["expandable_segments"])
print("max_split_size_mb:", "no limit" if split < 0 else split // MiB)
print("garbage_collection_threshold:", settings["garbage_collection_threshold"])
