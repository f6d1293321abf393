"""What docs/{en,zh}/multi-gpu.md (Choosing and hiding GPUs) teaches and the guides got wrong, asserted on the
installed PyTorch: CUDA_VISIBLE_DEVICES and when it is read, device order, copies between GPUs, model parallelism.
CPU tests run everywhere; the `cuda` and `multi_gpu` ones run on the GPU job."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys

import pytest
import torch

from distributed import output_of, run_python, start_python
from snippet_runs import run_snippet

# torch.cuda._parse_visible_devices() is how PyTorch itself reads the variable to count GPUs before CUDA
# starts (the CUDA runtime then applies the same variable). Without the variable it allows 64 devices.
PARSE = "import torch; print(torch.cuda._parse_visible_devices())"


NO_VARIABLES = {"CUDA_VISIBLE_DEVICES": None, "CUDA_VISIBLE_DEVICE": None}


# What a fresh process sees when CUDA_VISIBLE_DEVICES is set before or after torch starts: each probe is an
# interpreter of its own (the point is what happens before `import torch`), name -> (code, environment).
# Each spends seconds importing torch and none depends on another, so the tests below start them together.
PROBES = {
    "parse_unset": (PARSE, NO_VARIABLES),
    # guide 001: os.environ['CUDA_VISIBLE_DEVICE'] = '1' (no final S)
    "parse_misspelt": (PARSE, {**NO_VARIABLES, "CUDA_VISIBLE_DEVICE": "1"}),
    "parse_right": (PARSE, {**NO_VARIABLES, "CUDA_VISIBLE_DEVICES": "1"}),
    "empty": ("import torch; print(torch.cuda.device_count(), torch.cuda.is_available())",
              {"CUDA_VISIBLE_DEVICES": ""}),
    # guide 002: setting os.environ['CUDA_VISIBLE_DEVICES'] in the program works, with no condition attached
    "late": (
        "import os, torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"  # CUDA starts here, if there is one
        "torch.ones(1, device=device)\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = ''\n"  # too late to hide the GPU it already uses
        "print(torch.cuda.device_count(), torch.ones(1, device=device).device)",
        {},
    ),
    # is_available() calls cudaGetDeviceCount, which starts the CUDA driver: the GPUs are fixed from there,
    # while device_count() (CUDA not initialised by PyTorch yet) still reads the variable
    "after_is_available": (
        "import os, torch\n"
        "available = torch.cuda.is_available()\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = ''\n"
        "print(available, torch.cuda.device_count(), torch.ones(1, device='cuda' if available else 'cpu').device)",
        {},
    ),
    "early": (
        "import os; os.environ['CUDA_VISIBLE_DEVICES'] = ''\n"
        "import torch\n"
        "print(torch.cuda.device_count(), torch.cuda.is_available())\n"
        "try:\n"
        "    torch.ones(1, device='cuda')\n"
        "except RuntimeError:\n"
        "    print('no GPU for tensors')",
        {},
    ),
}


@functools.cache
def _started_probes() -> dict[str, subprocess.Popen]:
    return {name: start_python(code, **env) for name, (code, env) in PROBES.items()}


@functools.cache
def probe(name: str) -> str:
    """stdout of PROBES[name]; the first call starts them all."""
    return output_of(_started_probes()[name])


@pytest.mark.erratum("cuda-visible-device-misspelt")
def test_only_cuda_visible_devices_with_an_s_is_read():
    assert probe("parse_unset") == str(list(range(64)))
    assert probe("parse_misspelt") == probe("parse_unset")  # the misspelt name changes nothing
    assert probe("parse_right") == "[1]"


@pytest.mark.erratum("cuda-visible-device-misspelt-in-002")
@pytest.mark.cuda
def test_misspelt_variable_hides_no_gpu():
    # guide 002: "CUDA_VISIBLE_DEVICE=1" (no final S)
    count = "import torch; print(torch.cuda.device_count())"
    everything = int(run_python(count))
    assert everything >= 1
    assert int(run_python(count, CUDA_VISIBLE_DEVICE="")) == everything
    assert int(run_python(count, CUDA_VISIBLE_DEVICES="")) == 0


def test_an_empty_cuda_visible_devices_hides_every_gpu():
    # On a machine without a GPU the count is 0 either way: here this only shows the variable is accepted.
    assert probe("empty") == "0 False"


@pytest.mark.erratum("visible-gpus-are-renumbered")
@pytest.mark.multi_gpu
def test_visible_gpus_are_renumbered_from_zero():
    # guide 002: with CUDA_VISIBLE_DEVICES=1, tensor.cuda() goes to "cuda:1"
    outer = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [s.strip() for s in outer.split(",")] if outer else [str(i) for i in range(torch.cuda.device_count())]
    code = (
        "import torch; p = torch.cuda.get_device_properties(0); x = torch.ones(1).cuda(); "
        "print(torch.cuda.device_count(), x.device, p.pci_domain_id, p.pci_bus_id, p.pci_device_id)"
    )
    count, device, *slot = run_python(code, CUDA_VISIBLE_DEVICES=ids[1]).split()
    assert (count, device) == ("1", "cuda:0")  # the only GPU, called cuda:0 ...
    second = torch.cuda.get_device_properties(1)
    assert slot == [str(second.pci_domain_id), str(second.pci_bus_id), str(second.pci_device_id)]  # ... is GPU 1


@pytest.mark.erratum("cuda-visible-devices-too-late")
def test_cuda_visible_devices_set_late_moves_no_tensor():
    count, landed = probe("late").split()
    if torch.cuda.is_available():
        # On the H100 (torch 2.11.0) the count read the new value and said 0; torch 2.15.0 asks the CUDA
        # runtime once a tensor has been on the GPU. Either way the new tensor goes to the GPU.
        assert landed == "cuda:0"
        assert count in {"0", str(torch.cuda.device_count())}
    else:
        assert (count, landed) == ("0", "cpu")


def test_is_available_already_fixes_the_gpus():
    # Not yet run on a GPU.
    expected = "True 0 cuda:0" if torch.cuda.is_available() else "False 0 cpu"
    assert probe("after_is_available") == expected


def test_cuda_visible_devices_set_before_cuda_starts_hides_every_gpu():
    assert probe("early").splitlines() == ["0 False", "no GPU for tensors"]


@pytest.mark.erratum("os-environment-does-not-exist")
def test_os_has_environ_not_environment(monkeypatch):
    # guide 001: os.environment['CUDA_VISIBLE_DEVICES'] = '0,1,2,3'
    assert not hasattr(os, "environment")
    with pytest.raises(AttributeError, match="module 'os' has no attribute 'environment'"):
        os.environment  # noqa: B018
    monkeypatch.setitem(os.environ, "AGNOSTIC_PROBE", "seen")  # os.environ is what child processes inherit
    assert (
        subprocess.run(
            [sys.executable, "-c", "import os; print(os.environ['AGNOSTIC_PROBE'])"], capture_output=True, text=True
        ).stdout.strip()
        == "seen"
    )


@pytest.mark.erratum("dataparallel-misspelt")
def test_dataparallel_is_spelt_with_a_capital_p():
    # guide 001: torch.nn.Dataparallel(net, device_ids=device_ids)
    assert not hasattr(torch.nn, "Dataparallel")
    with pytest.raises(AttributeError, match=re.escape("module 'torch.nn' has no attribute 'Dataparallel'")):
        torch.nn.Dataparallel  # noqa: B018
    assert torch.nn.DataParallel is torch.nn.parallel.DataParallel


def test_env_magic_is_an_os_environ_assignment(monkeypatch):
    # guide 002, section 5.3: %env CUDA_VISIBLE_DEVICES=0,1 in a notebook
    from IPython.core.magics.osm import OSMagics

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    OSMagics().env("CUDA_VISIBLE_DEVICES=0,1")
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "0,1"  # nothing more than os.environ: same timing rule


@pytest.mark.erratum("env-magic-has-the-same-timing-catch")
@pytest.mark.cuda
def test_env_magic_after_cuda_started_moves_no_tensor():
    # Not simply ignored: like the late os.environ assignment, it leaves tensors where they went, while
    # device_count() may read the new value (0 on the H100 with torch 2.11.0) or keep its cached answer.
    late = (
        "import torch; from IPython.core.magics.osm import OSMagics; torch.ones(1, device='cuda'); "
        "OSMagics().env('CUDA_VISIBLE_DEVICES='); print(torch.cuda.device_count(), torch.ones(1).cuda().device)"
    )
    count, landed = run_python(late).split()
    assert landed == "cuda:0"
    assert count in {"0", str(torch.cuda.device_count())}


@pytest.mark.erratum("cuda-visible-devices-indices-follow-cuda-order")
@pytest.mark.cuda
def test_pci_bus_id_order_is_the_order_nvidia_smi_uses():
    # guide 002 names the GPUs of CUDA_VISIBLE_DEVICES=0,2,3 as nvidia-smi would. CUDA counts fastest first
    # by default; CUDA_DEVICE_ORDER=PCI_BUS_ID makes cuda:i the i-th GPU of nvidia-smi's list. (Which GPU
    # the default puts first is a heuristic of the driver, so only the PCI_BUS_ID order is asserted.) The
    # GPUs are told apart by UUID, as the page advises: GPUs on one bus share a pci_bus_id.
    smi = subprocess.run(
        ["nvidia-smi", "--query-gpu=pci.bus_id,uuid", "--format=csv,noheader"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    addresses, smi_uuids = zip(*(line.split(", ") for line in smi), strict=True)
    assert list(addresses) == sorted(addresses)  # nvidia-smi lists by PCI address ("00000000:26:00.0")
    probe = (
        "import torch; print(*[torch.cuda.get_device_properties(i).uuid "
        "for i in range(torch.cuda.device_count())])"
    )
    listed = run_python(probe, CUDA_DEVICE_ORDER="PCI_BUS_ID", CUDA_VISIBLE_DEVICES=None)
    assert ["GPU-" + uuid for uuid in listed.split()] == list(smi_uuids)


def test_device_properties_carry_the_uuid_and_the_whole_pci_address():
    # the page names .uuid, and pci_domain_id / pci_device_id beside pci_bus_id
    names = dir(torch._C._CudaDeviceProperties)
    for name in ("uuid", "pci_bus_id", "pci_device_id", "pci_domain_id"):
        assert name in names, name


@pytest.mark.multi_gpu
def test_cross_gpu_copy_leaves_the_original():
    # guide 003 (d2l): Z = X.cuda(1) copies X to the second GPU, where Y is
    x = torch.ones(2, 3, device="cuda:0")
    y = torch.rand(2, 3, device="cuda:1")
    with pytest.raises(RuntimeError, match="same device"):
        x + y
    z = x.to(y.device)
    assert z.device == torch.device("cuda:1") and x.device == torch.device("cuda:0")
    assert torch.equal((z + y).cpu(), (1 + y).cpu())


@pytest.mark.multi_gpu
def test_model_parallel_snippet_trains_across_two_gpus():
    out = run_snippet("snippets/multi_gpu/model_parallel.py").result(timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["cuda:1", "cuda:0", "cuda:1"]
