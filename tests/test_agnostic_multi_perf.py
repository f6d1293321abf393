"""What the device-agnostic, multi-GPU and performance pages say and the guides got wrong, asserted on
the installed PyTorch. CPU tests run everywhere; the CUDA ones run on the GPU job."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
import warnings

import pytest
import torch
from torch import nn

from docs_pages import REPO


def run_python(code: str, **env: str | None) -> str:
    """stdout of a fresh interpreter running `code`, with environment variables set (or removed, if None)."""
    environ = dict(os.environ)
    for name, value in env.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=environ, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip()


def sync_warnings(step) -> int:
    """How many synchronising CUDA operations step() performs, as CUDA's sync debug mode reports them."""
    previous = torch.cuda.get_sync_debug_mode()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            step()
    finally:
        torch.cuda.set_sync_debug_mode(previous)
    return sum("synchroniz" in str(w.message) for w in caught)


class TickCounter:
    """A Python thread that counts as fast as it can, giving the GIL back after every tick.

    While the main thread holds the GIL, the counter cannot tick at all; while the main thread waits
    inside PyTorch without the GIL, it ticks freely.
    """

    def __init__(self):
        self.ticks = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.ticks += 1
            time.sleep(0)  # releases the GIL

    def __enter__(self):
        self._thread.start()
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


# ---- device-agnostic code -----------------------------------------------------------------------------


def test_to_returns_the_same_tensor_when_nothing_changes():
    x = torch.arange(3.0)
    assert x.to("cpu") is x and x.to(torch.device("cpu")) is x and x.to(torch.float32) is x
    assert x.to("cpu", copy=True) is not x and x.to(torch.float64) is not x
    model = nn.Linear(2, 2)
    assert model.to("cpu") is model


# ---- several GPUs: CUDA_VISIBLE_DEVICES ---------------------------------------------------------------

# torch.cuda._parse_visible_devices() is how PyTorch itself reads the variable to count GPUs before CUDA
# starts (the CUDA runtime then applies the same variable). Without the variable it allows 64 devices.
PARSE = "import torch; print(torch.cuda._parse_visible_devices())"


def test_only_cuda_visible_devices_with_an_s_is_read():
    # guide 001: os.environ['CUDA_VISIBLE_DEVICE'] = '1' (no final S)
    unset = run_python(PARSE, CUDA_VISIBLE_DEVICES=None, CUDA_VISIBLE_DEVICE=None)
    misspelt = run_python(PARSE, CUDA_VISIBLE_DEVICES=None, CUDA_VISIBLE_DEVICE="1")
    right = run_python(PARSE, CUDA_VISIBLE_DEVICES="1", CUDA_VISIBLE_DEVICE=None)
    assert unset == str(list(range(64)))
    assert misspelt == unset  # the misspelt name changes nothing
    assert right == "[1]"


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
    count = "import torch; print(torch.cuda.device_count(), torch.cuda.is_available())"
    assert run_python(count, CUDA_VISIBLE_DEVICES="") == "0 False"


@pytest.mark.multi_gpu
def test_visible_gpus_are_renumbered_from_zero():
    # guide 002: with CUDA_VISIBLE_DEVICES=1, tensor.cuda() goes to "cuda:1"
    outer = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [s.strip() for s in outer.split(",")] if outer else [str(i) for i in range(torch.cuda.device_count())]
    probe = (
        "import torch; p = torch.cuda.get_device_properties(0); x = torch.ones(1).cuda(); "
        "print(torch.cuda.device_count(), x.device, p.pci_domain_id, p.pci_bus_id, p.pci_device_id)"
    )
    count, device, *slot = run_python(probe, CUDA_VISIBLE_DEVICES=ids[1]).split()
    assert (count, device) == ("1", "cuda:0")  # the only GPU, called cuda:0 ...
    second = torch.cuda.get_device_properties(1)
    assert slot == [str(second.pci_domain_id), str(second.pci_bus_id), str(second.pci_device_id)]  # ... is GPU 1


def test_cuda_visible_devices_set_late_moves_no_tensor():
    # guide 002: setting os.environ['CUDA_VISIBLE_DEVICES'] in the program works, with no condition attached
    late = (
        "import os, torch\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"  # CUDA starts here, if there is one
        "torch.ones(1, device=device)\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = ''\n"  # too late to hide the GPU it already uses
        "print(torch.cuda.device_count(), torch.ones(1, device=device).device)"
    )
    count, landed = run_python(late).split()
    if torch.cuda.is_available():
        # On the H100 (torch 2.11.0) the count read the new value and said 0; torch 2.14.1 asks the CUDA
        # runtime once a tensor has been on the GPU. Either way the new tensor goes to the GPU.
        assert landed == "cuda:0"
        assert count in {"0", str(torch.cuda.device_count())}
    else:
        assert (count, landed) == ("0", "cpu")


def test_is_available_already_fixes_the_gpus():
    # is_available() calls cudaGetDeviceCount, which starts the CUDA driver: the GPUs are fixed from there,
    # while device_count() (CUDA not initialised by PyTorch yet) still reads the variable. Not yet run on a GPU.
    probe = (
        "import os, torch\n"
        "available = torch.cuda.is_available()\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = ''\n"
        "print(available, torch.cuda.device_count(), torch.ones(1, device='cuda' if available else 'cpu').device)"
    )
    expected = "True 0 cuda:0" if torch.cuda.is_available() else "False 0 cpu"
    assert run_python(probe) == expected

def test_cuda_visible_devices_set_before_cuda_starts_hides_every_gpu():
    early = (
        "import os; os.environ['CUDA_VISIBLE_DEVICES'] = ''\n"
        "import torch\n"
        "print(torch.cuda.device_count(), torch.cuda.is_available())\n"
        "try:\n"
        "    torch.ones(1, device='cuda')\n"
        "except RuntimeError:\n"
        "    print('no GPU for tensors')"
    )
    assert run_python(early).splitlines() == ["0 False", "no GPU for tensors"]


def test_os_has_environ_not_environment(monkeypatch):
    # guide 001: os.environment['CUDA_VISIBLE_DEVICES'] = '0,1,2,3'
    assert not hasattr(os, "environment")
    with pytest.raises(AttributeError, match="module 'os' has no attribute 'environment'"):
        os.environment  # noqa: B018
    monkeypatch.setitem(os.environ, "AGNOSTIC_PROBE", "seen")  # os.environ is what child processes inherit
    assert subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ['AGNOSTIC_PROBE'])"], capture_output=True, text=True
    ).stdout.strip() == "seen"


def test_dataparallel_is_spelt_with_a_capital_p():
    # guide 001: torch.nn.Dataparallel(net, device_ids=device_ids)
    assert not hasattr(torch.nn, "Dataparallel")
    with pytest.raises(AttributeError, match=re.escape("module 'torch.nn' has no attribute 'Dataparallel'")):
        torch.nn.Dataparallel  # noqa: B018
    assert torch.nn.DataParallel is torch.nn.parallel.DataParallel


# ---- several GPUs: DataParallel -------------------------------------------------------------------------


@pytest.mark.no_cuda
def test_dataparallel_without_gpu_only_wraps_the_module():
    model = nn.Linear(4, 2)
    wrapped = nn.DataParallel(model, device_ids=[0, 1, 2])  # not even checked: there is nothing to check against
    assert wrapped.device_ids == [] and wrapped.module is model
    x = torch.randn(3, 4)
    assert torch.equal(wrapped(x), model(x))


@pytest.mark.multi_gpu
def test_dataparallel_rejects_more_device_ids_than_gpus():
    # guide 001: DataParallel(model, device_ids=[0, 1, 2]) whenever device_count() > 1
    count = torch.cuda.device_count()
    model = nn.Linear(4, 2).to("cuda:0")
    with pytest.raises(AssertionError, match="Invalid device id"):
        nn.DataParallel(model, device_ids=list(range(count + 1)))
    wrapped = nn.DataParallel(model)  # the default: every visible GPU
    assert wrapped.device_ids == list(range(count))
    assert wrapped(torch.randn(8, 4)).device == torch.device("cuda:0")


def test_dataparallel_docstring_recommends_ddp():
    doc = " ".join(nn.DataParallel.__doc__.split())
    assert "It is recommended to use :class:`~torch.nn.parallel.DistributedDataParallel`" in doc
    assert "even if there is only a single node" in doc


# ---- performance ----------------------------------------------------------------------------------------


def _train(read_every_step: bool) -> list[float]:
    """Three epochs of a small classifier; the mean loss per epoch, read in one of the two ways."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(512, 20, generator=g)
    y = (x[:, :10].sum(dim=1) > 0).long()
    model = nn.Linear(20, 2)
    nn.init.zeros_(model.weight)
    nn.init.zeros_(model.bias)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    means = []
    for _ in range(3):
        as_float, on_device = 0.0, torch.zeros(())
        for xb, yb in zip(x.split(64), y.split(64), strict=True):
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if read_every_step:
                as_float += loss.item()
            else:
                on_device += loss.detach()
        means.append(as_float / 8 if read_every_step else on_device.item() / 8)
    return means


def test_reading_the_loss_every_step_changes_no_result():
    # guide 004: running_loss += loss.item() on every step
    every_step, once = _train(read_every_step=True), _train(read_every_step=False)
    assert every_step == pytest.approx(once, rel=1e-6)
    assert every_step[-1] < every_step[0]


@pytest.mark.cuda
def test_reading_the_loss_every_step_synchronises_every_step():
    loss = torch.randn(64, device="cuda").pow(2).mean()
    torch.cuda.synchronize()
    running = torch.zeros((), device="cuda")
    assert sync_warnings(lambda: loss.item()) == 1  # .item(): one wait for the GPU, every time it is called
    assert sync_warnings(lambda: running.add_(loss.detach())) == 0  # accumulating on the device: none


def test_torch_releases_the_gil_while_it_computes():
    # guide 003: logging a GPU loss "triggers the GIL" so that all GPUs block
    a = torch.randn(2000, 2000)
    with TickCounter() as counter:
        before = counter.ticks
        a @ a  # one long call into PyTorch
        during = counter.ticks - before
    assert during > 100  # another Python thread ran meanwhile: PyTorch did not hold the GIL


@pytest.mark.cuda
def test_item_waits_for_the_gpu_without_holding_the_gil():
    x = torch.ones((), device="cuda")
    torch.cuda.synchronize()
    with TickCounter() as counter:
        torch.cuda._sleep(1_000_000_000)  # queue roughly half a second or more of GPU work; returns at once
        y = x + 1  # queued behind it
        before, start = counter.ticks, time.perf_counter()
        value = y.item()  # must wait for both
        waited, during = time.perf_counter() - start, counter.ticks - before
    assert value == 2.0
    assert waited > 0.05  # .item() is a synchronisation: it waited for the queued GPU work
    assert during > 100  # ... and meanwhile another Python thread ran: the GIL was released
    assert sync_warnings(lambda: y.item()) == 1


@pytest.mark.cuda
def test_sync_points_as_the_page_shows_them():
    x = torch.randn(256, 256, device="cuda")
    pinned = torch.randn(256, 256).pin_memory()
    for step in (lambda: x @ x, lambda: x.sum(), lambda: pinned.to("cuda", non_blocking=True)):
        step()
        assert sync_warnings(step) == 0
    for step in (lambda: x.sum().item(), lambda: x.cpu(), lambda: x[0].tolist(), lambda: str(x),
                 lambda: bool((x > 0).any())):
        step()
        assert sync_warnings(step) >= 1


@pytest.mark.cuda
def test_copies_to_the_gpu_wait_unless_pinned_and_non_blocking():
    # the performance page and the loss-item-every-step erratum: blocking copies wait every time; the
    # sync debug mode reports them, but not whatever the driver waits for on a pageable non-blocking copy
    result = subprocess.run([sys.executable, "snippets/performance/copy_waits.py"], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    line = re.compile(r"(.+?) +(waits|returns at once), (reported|not reported)")
    seen = {m[1]: (m[2], m[3]) for m in map(line.fullmatch, result.stdout.splitlines()) if m}
    assert len(seen) == 4, result.stdout
    assert seen["batch.to('cuda')"] == ("waits", "reported")
    assert seen["pinned.to('cuda')"] == ("waits", "reported")
    assert seen["pinned.to('cuda', non_blocking=True)"] == ("returns at once", "not reported")
    assert seen["batch.to('cuda', non_blocking=True)"][1] == "not reported"


@pytest.mark.no_cuda
def test_without_a_gpu_synchronize_and_pinning_raise():
    for call in (torch.accelerator.synchronize, torch.cuda.synchronize, lambda: torch.ones(2).pin_memory()):
        with pytest.raises(RuntimeError):
            call()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.ones(4, 2)), batch_size=2,
                                         pin_memory=True)
    with pytest.warns(UserWarning, match="pin_memory"):
        (batch,) = next(iter(loader))
    assert not batch.is_pinned()


# ---- several GPUs: device order, copies, model parallelism, several nodes --------------------------------


@pytest.mark.cuda
def test_pci_bus_id_order_is_the_order_nvidia_smi_uses():
    # guide 002 names the GPUs of CUDA_VISIBLE_DEVICES=0,2,3 as nvidia-smi would. CUDA counts fastest first
    # by default; CUDA_DEVICE_ORDER=PCI_BUS_ID makes cuda:i the i-th GPU of nvidia-smi's list. (Which GPU
    # the default puts first is a heuristic of the driver, so only the PCI_BUS_ID order is asserted.)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=pci.bus_id", "--format=csv,noheader"],
                         capture_output=True, text=True, check=True).stdout.split()
    smi_buses = [int(bus_id.split(":")[1], 16) for bus_id in smi]  # "00000000:26:00.0" -> 0x26
    assert smi_buses == sorted(smi_buses)  # nvidia-smi lists by PCI bus
    probe = ("import torch; print(*[torch.cuda.get_device_properties(i).pci_bus_id "
             "for i in range(torch.cuda.device_count())])")
    listed = run_python(probe, CUDA_DEVICE_ORDER="PCI_BUS_ID", CUDA_VISIBLE_DEVICES=None)
    in_bus_order = [int(b) for b in listed.split()]
    assert in_bus_order == smi_buses


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
    out = subprocess.run([sys.executable, "snippets/multi_gpu/model_parallel.py"], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["cuda:1", "cuda:0", "cuda:1"]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MULTI_NODE_OUTPUT = """\
world size 2, backend gloo
parameters identical on all ranks: True
loss fell: True"""


def test_ddp_script_runs_as_two_nodes():
    # Two torchrun agents, as on two machines, meet at one c10d rendezvous endpoint; Gloo on the CPU
    # (with the GPUs hidden, since two "nodes" on one machine would otherwise share GPU 0).
    endpoint = f"127.0.0.1:{_free_port()}"
    command = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2", "--nproc-per-node", "1",
               "--rdzv-backend", "c10d", "--rdzv-endpoint", endpoint, "--rdzv-id", "two-nodes",
               "snippets/multi_gpu/ddp_train.py"]
    environ = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    nodes = [subprocess.Popen(command, cwd=REPO, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    try:
        results = [node.communicate(timeout=300) for node in nodes]
    finally:
        for node in nodes:
            node.kill()
    for node, (_, err) in zip(nodes, results, strict=True):
        assert node.returncode == 0, err[-3000:]
    printed = [out.strip() for out, _ in results if out.strip()]
    assert printed == [MULTI_NODE_OUTPUT]  # rank 0, on whichever node the rendezvous made first, prints
    for page in ("en", "zh"):
        shown = (REPO / "docs" / page / "multi-gpu.md").read_text(encoding="utf-8")
        assert f"snippets/multi_gpu/ddp_train.py\n{MULTI_NODE_OUTPUT}\n```" in shown  # the page's console block


# ---- more of the guides' claims, checked line by line ----------------------------------------------------


def test_env_magic_is_an_os_environ_assignment(monkeypatch):
    # guide 002, section 5.3: %env CUDA_VISIBLE_DEVICES=0,1 in a notebook
    from IPython.core.magics.osm import OSMagics

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    OSMagics().env("CUDA_VISIBLE_DEVICES=0,1")
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "0,1"  # nothing more than os.environ: same timing rule


@pytest.mark.cuda
def test_env_magic_after_cuda_started_is_ignored():
    late = ("import torch; from IPython.core.magics.osm import OSMagics; torch.ones(1, device='cuda'); "
            "OSMagics().env('CUDA_VISIBLE_DEVICES='); print(torch.cuda.device_count())")
    assert int(run_python(late)) >= 1


def test_dataparallel_constructor_no_longer_asks_cuda():
    # guide 001 quotes DataParallel.__init__ as testing torch.cuda.is_available()
    import inspect

    source = inspect.getsource(nn.DataParallel.__init__)
    assert "torch.cuda.is_available()" not in source
    assert "_get_available_device_type()" in source


def test_data_loading_changes_with_a_gpu():
    # guide 004, section 2.2: data loading is the same for CPU and GPU
    data = torch.utils.data.TensorDataset(torch.ones(4, 2))
    loader = torch.utils.data.DataLoader(data, batch_size=2, pin_memory=True)
    if torch.cuda.is_available():
        (batch,) = next(iter(loader))
        assert batch.is_pinned()  # ready for batch.to("cuda", non_blocking=True)
    else:
        with pytest.warns(UserWarning, match="pin_memory"):
            (batch,) = next(iter(loader))
        assert not batch.is_pinned()  # the setting only means something with a GPU


def test_cpu_and_cuda_methods_are_not_replaced_by_to():
    # guide 001: .to() moves tensors and modules "instead of the previous cpu() or cuda() methods"
    t, net = torch.ones(2), nn.Linear(2, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a deprecated method would warn here
        assert t.cpu() is t and net.cpu() is net
    for method in (torch.Tensor.cpu, torch.Tensor.cuda, nn.Module.cpu, nn.Module.cuda):
        assert "deprecated" not in (method.__doc__ or "").lower()
