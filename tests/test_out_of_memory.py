"""What docs/{en,zh}/out-of-memory.md (Out of memory) says, asserted on the installed PyTorch (and on a GPU
where one is present): the message and its class, a worker the OOM killer ends, the allocator's settings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from snippet_runs import run_code

MiB = 2**20
TORCH_DIR = Path(torch.__file__).parent


def test_one_oom_class_for_every_device():
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    assert issubclass(torch.OutOfMemoryError, RuntimeError)


KILLED_WORKER = '''
import os, signal
from torch.utils.data import DataLoader, Dataset

class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os.kill(os.getpid(), signal.SIGKILL)  # what the kernel's OOM killer sends

try:
    next(iter(DataLoader(Dies(), num_workers=1)))
except RuntimeError as err:
    print(err)
    print(err.__cause__)
'''


def test_a_worker_killed_like_the_oom_killer_does_is_reported_so():
    run = run_code(KILLED_WORKER)
    assert run.returncode == 0, run.stderr
    printed, cause = run.stdout.splitlines()
    assert re.fullmatch(r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly", printed)
    assert re.fullmatch(r"DataLoader worker \(pid \d+\) is killed by signal: Killed\. ?", cause)


@pytest.mark.cuda
def test_an_impossible_request_raises_out_of_memory_and_leaves_nothing_allocated():
    before = torch.cuda.memory_allocated()
    total = torch.cuda.get_device_properties(0).total_memory
    with pytest.raises(torch.OutOfMemoryError, match=r"^CUDA out of memory\. Tried to allocate"):
        torch.empty(2 * total, dtype=torch.uint8, device="cuda")
    assert torch.cuda.memory_allocated() == before


def allocator_settings(env: dict[str, str]) -> str:
    """What a fresh process's allocator makes of these variables: its settings, or its error's first line."""
    code = (
        "import os\n"
        f"os.environ.update({env!r})\n"
        "import torch\n"
        "try:\n"
        "    s = torch.cuda.memory._snapshot()['allocator_settings']\n"
        "    print(s['expandable_segments'], s['max_split_size'], s['garbage_collection_threshold'])\n"
        "except ValueError as err:\n"
        "    print('ValueError:', err)\n"
    )
    run = run_code(code)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_both_variable_names_are_read_and_the_cuda_one_wins():
    assert allocator_settings({"PYTORCH_ALLOC_CONF": "expandable_segments:True"}) == "True -1 0.0"
    assert allocator_settings({"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}) == "True -1 0.0"
    both = {"PYTORCH_ALLOC_CONF": "expandable_segments:True", "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:256"}
    assert allocator_settings(both) == f"False {256 * MiB} 0.0"
    # the generic settings too: a bad generic value is not even looked at while the CUDA name is set
    both = {"PYTORCH_ALLOC_CONF": "no_such_option:1", "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    assert allocator_settings(both) == "True -1 0.0"


def test_the_cuda_allocator_reads_its_own_name_first_and_falls_back_to_the_generic_one():
    # what the generic header says of the two names: tests/data/citations.yml
    cuda = (TORCH_DIR / "include/c10/cuda/CUDAAllocatorConfig.h").read_text()
    instance = cuda[cuda.index("static CUDAAllocatorConfig& instance()"):]
    assert instance.index('"PYTORCH_CUDA_ALLOC_CONF"') < instance.index('"PYTORCH_ALLOC_CONF"')
    assert "if (!env.has_value()) {\n        env = c10::utils::get_env(\"PYTORCH_ALLOC_CONF\");" in instance


def test_the_settings_are_read_once():
    code = (
        "import os, torch\n"
        "os.environ['PYTORCH_ALLOC_CONF'] = 'expandable_segments:True'\n"
        "before = torch.cuda.memory._snapshot()['allocator_settings']['expandable_segments']\n"
        "os.environ['PYTORCH_ALLOC_CONF'] = 'expandable_segments:False'\n"
        "print(before, torch.cuda.memory._snapshot()['allocator_settings']['expandable_segments'])\n"
    )
    run = run_code(code)
    assert (run.returncode, run.stdout.strip()) == (0, "True True"), run.stderr


@pytest.mark.parametrize(("setting", "error"), [
    ("max_split_size_mb:19", "ValueError: CachingAllocator option max_split_size_mb too small, must be >= 20"),
    ("garbage_collection_threshold:1.5", "ValueError: garbage_collect_threshold is invalid, set it in (0.0, 1.0)"),
])
def test_values_out_of_range_are_refused(setting, error):
    assert allocator_settings({"PYTORCH_ALLOC_CONF": setting}) == error
    assert allocator_settings({"PYTORCH_ALLOC_CONF": setting.replace("19", "20").replace("1.5", "0.5")}) != error
