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
    # ... and with a GPU, the restore is obj.to(device) with the device named by that location, cuda:0
    import inspect

    from torch import serialization

    assert serialization._get_restore_location(None) is serialization.default_restore_location
    deserialize = inspect.getsource(serialization._deserialize)
    assert "device = _validate_device(location, backend_name)" in deserialize
    assert "return obj.to(device=device)" in deserialize
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
    doc = " ".join(DistributedSampler.__doc__.split())
    assert ("If ``False``, the sampler will add extra indices to make the data evenly divisible across the "
            "replicas. Default: ``False``.") in doc
    for lang in ("en", "zh"):
        text = section(lang, "evaluation")
        assert "`Subset(data, range(rank, len(data), world))`" in text and "`ceil(11 / 2) = 6`" in text, lang


def test_the_ddp_wrapper_may_broadcast_buffers_in_its_forward_pass():
    # ddp-checkpoints.md#evaluation: why the loop calls model.module, whose forward involves no other rank
    import inspect

    from torch.nn.parallel import DistributedDataParallel

    pre_forward = inspect.getsource(DistributedDataParallel._pre_forward)
    assert "if self._check_sync_bufs_pre_fwd():\n            self._sync_buffers()" in pre_forward
    assert "self.forward_sync_buffers" in inspect.getsource(DistributedDataParallel.will_sync_module_buffers)
    assert "_distributed_broadcast_coalesced" in inspect.getsource(DistributedDataParallel._default_broadcast_coalesced)


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


def test_join_docstrings_say_what_the_page_says():
    # ddp-checkpoints.md#join: zeros from the joined ranks, divided by the initial world size; the last joiner's
    # model broadcast; throw_on_early_termination for other collectives; one all-reduce per iteration
    import inspect

    from torch.distributed.algorithms import Join
    from torch.nn.parallel import DistributedDataParallel

    join = " ".join(DistributedDataParallel.join.__doc__.split())
    assert "broadcast the model corresponding to the last joined process to all processes" in join
    assert ("``SyncBatchNorm`` in the model's forward pass, then the flag ``throw_on_early_termination`` must be "
            "enabled") in join
    assert inspect.signature(DistributedDataParallel.join).parameters["divide_by_initial_world_size"].default is True
    # ... and so it is under Join([model]), which asks the model for its join hook without arguments
    assert 'kwargs.get("divide_by_initial_world_size", True)' in inspect.getsource(DistributedDataParallel.join_hook)
    assert "Joined processes contribute zero gradient." in inspect.getsource(
        DistributedDataParallel._match_all_reduce_for_bwd_pass)
    notify = " ".join(Join.notify_join_context.__doc__.split())
    assert "An async work handle for the all-reduce meant to notify the context manager that the process has not " \
           "yet joined" in notify
    assert "be called at the beginning of the forward pass in :class:`DistributedDataParallel`" in notify


def test_static_graph_promises_what_the_page_says_and_skips_the_search():
    # ddp-checkpoints.md#static-graph
    import inspect

    from torch.nn.parallel import DistributedDataParallel

    doc = " ".join(DistributedDataParallel.__doc__.split())
    for words in (
        "The set of used and unused parameters will not change during the whole training loop",
        "(meaning there is no control flow depending on iterations)",
        "1) Reentrant backwards. 2) Activation checkpointing multiple times. 3) Activation checkpointing when "
        "model has unused parameters.",
        "as DDP will not search graph in each iteration to detect unused parameters when static_graph is set to "
        "be ``True``",
    ):
        assert words in doc, words
    # the per-iteration search of the autograd graph runs only without a static graph
    post_forward = inspect.getsource(DistributedDataParallel._post_forward)
    assert ("if self.find_unused_parameters and not self.static_graph:\n"
            "                # Do not need to populate this for static graph.\n"
            "                self.reducer.prepare_for_backward(list(_find_tensors(output)))") in post_forward
    for lang in ("en", "zh"):
        assert "(ddp-training.md#find-unused-parameters)" in section(lang, "static-graph"), lang


@pytest.mark.parametrize("script", ['ddp_checkpoint.py', 'ddp_evaluate.py', 'ddp_join.py', 'ddp_static_graph.py'])
def test_a_torchrun_script_started_with_plain_python_says_so_in_one_line(script):
    done = run_snippet(f"snippets/multi_gpu/{script}").result(timeout=300)  # `python snippets/multi_gpu/<script>`
    assert done.returncode == 1
    assert done.stderr.strip() == "start it with torchrun, as its docstring shows"
