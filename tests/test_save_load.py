"""Facts of the save-and-load page that need more than a page block: a GPU checkpoint on a CPU-only
machine, what weights_only refuses, and where a restored optimizer puts its state."""

from __future__ import annotations

import pickle
import textwrap
import zipfile

import pytest
import torch
from torch import nn

from site_pages import DOCS, LANGUAGES
from snippet_runs import run_code

# A checkpoint written on a GPU records "cuda:0" as the location of each tensor's storage. This
# machine has no GPU, so the test writes the same record by registering a tagger (the hook torch.save
# asks for every storage's location) that answers "cuda:0"; torch.load then sees what it sees in a
# checkpoint written on a GPU.
WRITE_GPU_TAGGED = textwrap.dedent("""
    import sys, torch
    torch.serialization.register_package(0, lambda storage: "cuda:0", lambda storage, location: None)
    torch.save(torch.nn.Linear(4, 2).state_dict(), sys.argv[1])
""")


@pytest.fixture(scope="module")
def gpu_tagged_checkpoint(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "from-gpu.pt"
    result = run_code(WRITE_GPU_TAGGED, str(path))
    assert result.returncode == 0, result.stderr
    with zipfile.ZipFile(path) as archive:
        pickled = archive.read(next(n for n in archive.namelist() if n.endswith("data.pkl")))
    assert b"cuda:0" in pickled and b"cpu" not in pickled  # every storage claims cuda:0, as from a GPU
    return path


def _page(lang: str) -> str:
    return (DOCS / lang / "save-load.md").read_text(encoding="utf-8")


@pytest.mark.no_cuda
def test_a_gpu_checkpoint_without_map_location_fails_with_the_message_the_page_quotes(gpu_tagged_checkpoint):
    result = run_code("import sys, torch; torch.load(sys.argv[1])", str(gpu_tagged_checkpoint))
    assert result.returncode != 0
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith("RuntimeError: Attempting to deserialize object on a CUDA device")
    for lang in LANGUAGES:
        assert message.removeprefix("RuntimeError: ") in _page(lang), lang


@pytest.mark.parametrize("map_location", ["'cpu'", "torch.device('cpu')", "{'cuda:0': 'cpu'}"])
def test_a_gpu_checkpoint_loads_on_the_cpu_with_map_location(gpu_tagged_checkpoint, map_location):
    code = f"import sys, torch; s = torch.load(sys.argv[1], map_location={map_location}); print(s['weight'].device)"
    result = run_code(code, str(gpu_tagged_checkpoint))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "cpu"


@pytest.mark.cuda
def test_on_a_gpu_a_checkpoint_returns_to_the_gpu_unless_mapped(tmp_path):
    path = tmp_path / "gpu.pt"
    torch.save(nn.Linear(4, 2).to("cuda").state_dict(), path)
    assert torch.load(path)["weight"].device == torch.device("cuda", 0)
    assert torch.load(path, map_location="cpu")["weight"].device == torch.device("cpu")


def test_weights_only_became_the_default_in_2_6_as_torch_itself_says(tmp_path):
    path = tmp_path / "object.pt"
    torch.save({"when": __import__("datetime").date(2025, 1, 29)}, path)
    with pytest.raises(Exception, match=r"In PyTorch 2\.6, we changed the default value of the `weights_only`"):
        torch.load(path)
    assert torch.load(path, weights_only=False)["when"].year == 2025
    for lang in LANGUAGES:
        assert "2.6" in _page(lang).split("{ #weights-only }", 1)[1].split("\n## ", 1)[0], lang


def test_a_restored_optimizer_moves_its_state_to_the_parameters_device():
    source = nn.Linear(4, 2)
    optimizer = torch.optim.Adam(source.parameters())
    source(torch.ones(1, 4)).sum().backward()
    optimizer.step()
    saved = optimizer.state_dict()  # on the CPU, as torch.load(..., map_location="cpu") gives it

    target = nn.Linear(4, 2, device="meta")  # meta stands in for a GPU
    restored = torch.optim.Adam(target.parameters())
    restored.load_state_dict(saved)
    state = restored.state[target.weight]
    assert state["exp_avg"].device == state["exp_avg_sq"].device == torch.device("meta")
    assert state["step"].device == torch.device("cpu")  # Adam keeps its step count on the CPU (not capturable)


def test_load_state_dict_copies_into_the_model_where_it_is():
    saved = nn.Linear(4, 2).state_dict()
    model = nn.Linear(4, 2, device="meta")
    with pytest.warns(UserWarning, match="assign=True"):
        model.load_state_dict(saved)
    assert model.weight.device == torch.device("meta")
    model.load_state_dict(saved, assign=True)  # assign=True takes the saved tensors themselves
    assert model.weight.device == torch.device("cpu")


def test_a_whole_saved_model_loads_only_with_weights_only_false(tmp_path):
    path = tmp_path / "model.pt"
    torch.save(nn.Linear(4, 2), path)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL torch\.nn\.modules\.linear\.Linear"):
        torch.load(path)
    assert isinstance(torch.load(path, weights_only=False), nn.Linear)
