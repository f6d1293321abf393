"""What docs/{en,zh}/ddp-checkpoints.md (Checkpoints and evaluation under DDP) says, asserted on the installed
PyTorch: checkpoints and map_location, DistributedSampler's padding, Join, static graphs."""

from __future__ import annotations

import re

import pytest
import torch

from distributed import run_python, section, torchrun_two_cpu_ranks
from site_pages import REPO
from snippet_runs import run_snippet


def test_a_checkpoint_cut_short_fails_to_load(tmp_path):
    # ddp-checkpoints.md#checkpoints: what a rank that reads the file before rank 0 has finished it may get
    path = tmp_path / "checkpoint.pt"
    torch.save(torch.nn.Linear(16, 1).state_dict(), path)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive: failed finding central "
                                           "directory"):
        torch.load(path)
    with pytest.raises(FileNotFoundError):
        torch.load(tmp_path / "not-written-yet.pt")
    for lang in ("en", "zh"):
        text = " ".join(section(lang, "checkpoints").split())
        assert "`PytorchStreamReader failed reading zip archive: failed finding central directory`" in text, lang
        assert "`FileNotFoundError`" in text, lang


# A checkpoint as torch.save writes it from cuda:0, made on a machine without a GPU: a tagger ahead of the CPU's
# (torch.serialization.register_package) tags every storage "cuda:0", the tag a tensor on GPU 0 gets.
SAVED_FROM_CUDA_0 = """\
import io, torch
from torch import serialization
serialization.register_package(0, lambda storage: "cuda:0" if storage.device.type == "cpu" else None,
                               lambda storage, location: None)
buffer = io.BytesIO()
torch.save(torch.nn.Linear(2, 1).state_dict(), buffer)
seen = set()
def note(storage, location):
    seen.add(location)
    return storage
for where in (note, torch.device("cpu"), {"cuda:0": "cpu"}):
    buffer.seek(0)
    print(torch.load(buffer, map_location=where)["weight"].device)
print(sorted(seen))
buffer.seek(0)
try:
    torch.load(buffer)
except RuntimeError as error:
    print(str(error).split(".")[0])
"""


def test_without_map_location_a_tensor_saved_from_cuda_0_goes_back_to_cuda_0():
    # ddp-checkpoints.md#checkpoints: the location torch.save recorded decides where torch.load restores a tensor
    # when map_location does not say otherwise; here, with no GPU, "cuda:0" fails instead of landing there.
    lines = run_python(SAVED_FROM_CUDA_0, CUDA_VISIBLE_DEVICES="").splitlines()
    assert lines == ["cpu", "cpu", "cpu", "['cuda:0']",
                     "Attempting to deserialize object on a CUDA device but torch"]
    # ... and with a GPU, the restore is obj.to(device) with the device named by that location, cuda:0 (the source
    # it runs: tests/data/citations.yml)
    from torch import serialization

    assert serialization._get_restore_location(None) is serialization.default_restore_location
    for lang in ("en", "zh"):
        text = section(lang, "checkpoints")
        assert "`map_location=device`" in text and '`map_location={"cuda:0": f"cuda:{rank}"}`' in text, lang
        assert "(save-load.md#map-location)" in text, lang


def test_distributed_sampler_repeats_samples_to_even_out_the_ranks():
    # ddp-checkpoints.md#evaluation: 11 samples on 2 ranks; no process group needed with num_replicas and rank
    from torch.utils.data import DistributedSampler

    def shares(**options):
        return [list(DistributedSampler(range(11), num_replicas=2, rank=rank, shuffle=False, **options))
                for rank in (0, 1)]

    assert shares() == [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 0]]  # sample 0 twice
    assert shares(drop_last=True) == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]  # sample 10 never
    # the page's share per rank: the same indices, without the padding
    assert [list(range(rank, 11, 2)) for rank in (0, 1)] == [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9]]
    for lang in ("en", "zh"):
        text = section(lang, "evaluation")
        assert "`Subset(data, range(rank, len(data), world))`" in text and "`ceil(11 / 2) = 6`" in text, lang


JOIN_TIMEOUT = "datetime.timedelta(seconds=5)"


def test_without_join_the_rank_with_more_batches_waits_until_the_timeout(tmp_path):
    # ddp-checkpoints.md#join: the page's script with Join taken out, and a 5-second timeout in place of Gloo's
    # 30 minutes: rank 0's third backward() all-reduces with no partner, and the run fails instead of printing.
    script = (REPO / "snippets/multi_gpu/ddp_join.py").read_text(encoding="utf-8")
    script, joins = re.subn(r"with Join\(\[model\]\):", "if True:", script)
    script, groups = re.subn(r'dist\.init_process_group\("gloo"\)',
                             f'dist.init_process_group("gloo", timeout={JOIN_TIMEOUT})', script)
    assert (joins, groups) == (1, 1)
    probe = tmp_path / "without_join.py"
    probe.write_text("import datetime\n" + script, encoding="utf-8")
    done = torchrun_two_cpu_ranks(str(probe), tmp_path)
    assert done.returncode != 0
    assert done.stdout == ""
    assert "Timed out waiting 5000ms" in done.stderr
    for lang in ("en", "zh"):
        assert "`Timed out waiting 5000ms`" in section(lang, "join"), lang


def test_join_divides_by_the_initial_world_size_by_default():
    # ddp-checkpoints.md#join: zeros from the joined ranks, divided by the initial world size (what the docstrings
    # and source say of Join: tests/data/citations.yml)
    import inspect

    from torch.nn.parallel import DistributedDataParallel

    assert inspect.signature(DistributedDataParallel.join).parameters["divide_by_initial_world_size"].default is True


def test_the_static_graph_section_links_to_the_search_it_skips():
    # ddp-checkpoints.md#static-graph (what static_graph promises and skips: tests/data/citations.yml)
    for lang in ("en", "zh"):
        assert "(ddp-training.md#find-unused-parameters)" in section(lang, "static-graph"), lang


@pytest.mark.parametrize("script", ['ddp_checkpoint.py', 'ddp_evaluate.py', 'ddp_join.py', 'ddp_static_graph.py'])
def test_a_torchrun_script_started_with_plain_python_says_so_in_one_line(script):
    done = run_snippet(f"snippets/multi_gpu/{script}").result(timeout=300)  # `python snippets/multi_gpu/<script>`
    assert done.returncode == 1
    assert done.stderr.strip() == "start it with torchrun, as its docstring shows"


def test_join_syncs_the_final_model_from_the_highest_of_the_last_ranks():
    # ddp-checkpoints.md#join: the authoritative copy is the largest rank among the last joiners (an all-reduce MAX)
    import inspect

    from torch.nn.parallel import DistributedDataParallel

    assert "We break ties via picking the larger rank." in inspect.getsource(DistributedDataParallel._sync_final_model)
    assert "op=ReduceOp.MAX" in inspect.getsource(DistributedDataParallel._find_common_rank)
