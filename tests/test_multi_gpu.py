"""What the several-GPUs page (docs/{en,zh}/multi-gpu.md) teaches and the guides got wrong, asserted on the
installed PyTorch. Each erratum in docs/data/errata/multi-gpu.yml names one of these tests. CPU tests run
everywhere; the `cuda` and `multi_gpu` ones run on the GPU job.
"""

from __future__ import annotations

import ast
import functools
import os
import pathlib
import re
import subprocess
import sys

import pytest
import torch
from pytest_codeblocks import CodeBlock

from codeblocks_plugin import page_blocks, skip_reason, start_command
from site_build import finished
from site_pages import REPO, fences, nav_part, pages
from snippet_runs import run_snippet


def start_python(code: str, **env: str | None) -> subprocess.Popen:
    """A fresh interpreter running `code`, with environment variables set (or removed, if None)."""
    environ = dict(os.environ)
    for name, value in env.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    return subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=environ, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def output_of(process: subprocess.Popen) -> str:
    run = finished(process)
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout.strip()


def run_python(code: str, **env: str | None) -> str:
    """stdout of a fresh interpreter running `code` (see start_python)."""
    return output_of(start_python(code, **env))


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


# ---- CUDA_VISIBLE_DEVICES ----------------------------------------------------------------------------------


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


# ---- device order, copies, model parallelism, several nodes ------------------------------------------------


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


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MULTI_NODE_OUTPUT = """\
world size 2, backend gloo
parameters identical on all ranks: True
loss fell: True"""


# A page's script, run by torchrun as a module whose main() is followed by a look at the process's threads.
# Each rank writes its own file: two ranks printing to one pipe can run their lines together.
# A Gloo thread that a freed group has told to stop may need a moment to end: a fresh-clone CI run (2026-11-29)
# listed rank 1's gloo_tcp_loop right after destroy_process_group() in ddp_no_sync.py, once in five probes, and 0 of 6
# reruns under two busy loops did. So the look waits up to two seconds for the Gloo threads to end; a thread that a
# live group still holds never ends, so a script that keeps its group alive still fails (the two tests below).
def torchrun_scripts() -> list[str]:
    """Every script that a page's runnable torchrun block starts and that opens a process group."""
    named = {name for page in pages() for fence in fences(page.text()) if fence.runs and "torchrun" in fence.code
             for name in re.findall(r"snippets/[\w/]+\.py", fence.code)}
    return sorted(name for name in named if "init_process_group(" in (REPO / name).read_text(encoding="utf-8"))


def test_every_torchrun_script_is_checked_for_gloo_threads_where_a_page_runs_it():
    # No Gloo thread may outlive a script's main(): each rank that a page's shell block starts checks it at its exit
    # (tests/rank_exit_check, which says why), so the page's own run of each script is the check, on a machine
    # without a GPU too.
    scripts = torchrun_scripts()
    assert {"snippets/multi_gpu/ddp_train.py", "snippets/multi_gpu/fsdp_train.py"} <= set(scripts)
    on_cpu = {name for page in pages() for block in page_blocks(page.path)
              if block.expanded.syntax in {"bash", "sh"} and "torchrun" in block.expanded.code
              and skip_reason([m.removeprefix("pytest.mark.") for m in block.marks], gpus=0) is None
              for name in re.findall(r"snippets/[\w/]+\.py", block.expanded.code)}
    assert set(scripts) <= on_cpu


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads thread names from /proc")
@pytest.mark.parametrize(
    "line",
    ["    gc.collect()\n", '    getattr(mesh, "_pg_registry", {}).clear()\n'],
    ids=["without gc.collect", "without emptying the mesh's registry"],
)
def test_each_line_of_the_fsdp_teardown_is_needed(line, tmp_path):
    # FSDP's state sits in reference cycles that hold the group, and DTensor's caches (torch 2.15) keep the
    # mesh, whose registry holds it too: without either line the Gloo threads outlive main(), and the exit check
    # that every page's torchrun block runs under says so. When a torch release frees them by itself, this fails
    # and the line can go.
    script = (REPO / "snippets/multi_gpu/fsdp_train.py").read_text(encoding="utf-8")
    assert script.count(line) == 1
    without = tmp_path / "fsdp_train.py"
    without.write_text(script.replace(line, ""), encoding="utf-8")
    command = f"torchrun --standalone --nproc-per-node=2 --log-dir {tmp_path / 'logs'} {without}"
    stdout, stderr = (process := start_command(CodeBlock(command, 0, "bash"))).communicate(timeout=600)
    assert process.returncode != 0, stdout
    for rank in (0, 1):
        assert re.search(rf"^rank {rank}: Gloo threads outlive the script: \[.*gloo", stderr, re.M), stderr[-3000:]


def test_without_the_early_import_the_group_outlives_destroy_process_group():
    # The same script with the import line removed: the Gloo threads are still there after main() (the check
    # above can fail).
    script = (REPO / "snippets/multi_gpu/ddp_train.py").read_text(encoding="utf-8")
    late, found = re.subn(r"^import torch\.distributed\.nn\b", "# import torch.distributed.nn", script, flags=re.M)
    assert found == 1
    code = (
        "import os, types\n"
        "module = types.ModuleType('ddp_train'); exec(compile(CODE, 'ddp_train.py', 'exec'), module.__dict__)\n"
        "module.main()\n"
        "print(sorted(open(f'/proc/self/task/{t}/comm').read().strip() for t in os.listdir('/proc/self/task')))\n"
    ).replace("CODE", repr(late))
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=dict(os.environ, CUDA_VISIBLE_DEVICES=""),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "pt_gloo_runloop" in done.stdout.splitlines()[-1]


def test_ddp_script_runs_as_two_nodes(tmp_path):
    # Two torchrun agents, as on two machines, meet at one c10d rendezvous endpoint; Gloo on the CPU
    # (with the GPUs hidden, since two "nodes" on one machine would otherwise share GPU 0). Their logs go
    # to tmp_path: without --log-dir each agent leaves a /tmp/torchelastic_* folder behind.
    endpoint = f"127.0.0.1:{_free_port()}"
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nnodes",
        "2",
        "--nproc-per-node",
        "1",
        "--rdzv-backend",
        "c10d",
        "--rdzv-endpoint",
        endpoint,
        "--rdzv-id",
        "two-nodes",
        "--log-dir",
        str(tmp_path),
        "snippets/multi_gpu/ddp_train.py",
    ]
    environ = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    nodes = [
        subprocess.Popen(command, cwd=REPO, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
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
        shown = page_text(page, "multi-node")
        assert f"snippets/multi_gpu/ddp_train.py\n{MULTI_NODE_OUTPUT}\n```" in shown  # the page's console block


# ---- gradient accumulation, unused parameters, SyncBatchNorm, FSDP2, debugging (issue 22) ------------------

NEW_TORCHRUN_SCRIPTS = ["ddp_no_sync.py", "ddp_unused.py", "sync_batchnorm.py", "fsdp_train.py", "monitored_barrier.py",
                        "ddp_checkpoint.py", "ddp_evaluate.py", "ddp_join.py", "ddp_static_graph.py"]


def torchrun_two_cpu_ranks(script: str, tmp_path, **env: str) -> subprocess.CompletedProcess:
    """`torchrun --standalone --nproc-per-node=2 script` with the GPUs hidden (Gloo), its logs in tmp_path."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", "--log-dir",
               str(tmp_path / "logs"), script]
    return subprocess.run(command, cwd=REPO, env=dict(os.environ, CUDA_VISIBLE_DEVICES="", **env),
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("script", NEW_TORCHRUN_SCRIPTS)
def test_a_torchrun_script_started_with_plain_python_says_so_in_one_line(script):
    done = run_snippet(f"snippets/multi_gpu/{script}").result(timeout=300)  # `python snippets/multi_gpu/<script>`
    assert done.returncode == 1
    assert done.stderr.strip() == "start it with torchrun, as its docstring shows"


def test_without_the_last_sync_the_ranks_gradients_stay_apart(tmp_path):
    # The page's no_sync() script prints True for "after it" and "same gradients": with every micro-batch inside
    # no_sync() (no all-reduce at all), each rank keeps the gradient of its own 32 samples, and both say False.
    script = (REPO / "snippets/multi_gpu/ddp_no_sync.py").read_text(encoding="utf-8")
    never, found = re.subn(r"nullcontext\(\) if last else model\.no_sync\(\)", "model.no_sync()", script)
    assert found == 1
    probe = tmp_path / "never_synced.py"
    probe.write_text(never, encoding="utf-8")
    done = torchrun_two_cpu_ranks(str(probe), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "before the last micro-batch, ranks agree: False",
        "after it: False",
        "same gradients as one batch of 64: False",
    ]


# One process, a world of one (Gloo, no torchrun): what the page says of device_id (refused without an index,
# accepted as cpu:0), SyncBatchNorm and find_unused_parameters on the CPU, each line printed by the probe below.
WORLD_OF_ONE = """\
import torch, torch.distributed as dist
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel

torch.manual_seed(0)
x = torch.randn(2, 4, 5, 5)
plain = nn.BatchNorm2d(4)
synced = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(4)))[0]
print("no group, like BatchNorm:", torch.equal(plain(x), synced(x)))
try:
    dist.init_process_group("gloo", device_id=torch.device("cpu"), store=dist.HashStore(), rank=0, world_size=1)
except ValueError as error:
    print(error)
dist.init_process_group("gloo", device_id=torch.device("cpu:0"), store=dist.HashStore(), rank=0, world_size=1)
dist.barrier()
print("cpu:0 accepted:", dist.get_backend())
dist.destroy_process_group()
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
try:
    synced(x)
except ValueError as error:
    print(error)
synced.eval()
print("eval, like BatchNorm:", torch.equal(plain.eval()(x), synced(x)))
try:
    DistributedDataParallel(nn.Sequential(nn.Conv2d(3, 4, 3), synced))
except ValueError as error:
    print(error)

class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.main, self.aux = nn.Linear(2, 1), nn.Linear(2, 1)
    def forward(self, x):
        return self.main(x)

model = DistributedDataParallel(TwoHeads())
try:
    for _ in range(2):
        model(torch.randn(3, 2)).sum().backward()
except RuntimeError as error:
    print(repr(str(error)))
del model
dist.destroy_process_group()
"""


@functools.cache
def world_of_one() -> list[str]:
    return run_python(WORLD_OF_ONE, CUDA_VISIBLE_DEVICES="").splitlines()


def test_device_id_must_have_an_index():
    # ddp-training.md#device-id: torch 2.15 takes any device with an index (before: an accelerator only)
    message = "init_process_group device_id parameter must be a device with a valid index, e.g. cpu:0 or cuda:0"
    lines = world_of_one()
    assert message in lines
    assert "cpu:0 accepted: gloo" in lines, lines
    for lang in ("en", "zh"):
        text = (REPO / "docs" / lang / "ddp-training.md").read_text(encoding="utf-8")
        assert f"`ValueError: {message}`" in text and '`torch.device("cpu:0")`' in text, lang


def test_sync_batchnorm_on_the_cpu():
    lines = world_of_one()
    # without a process group, and in eval mode, it is a plain BatchNorm ...
    assert "no group, like BatchNorm: True" in lines and "eval, like BatchNorm: True" in lines
    # ... while training with a group, a CPU tensor is refused, and DDP refuses the CPU module
    assert "SyncBatchNorm expected input tensor to be on GPU or XPU or privateuseone" in lines
    assert "SyncBatchNorm layers only work with GPU modules" in lines


def test_the_unused_parameter_error_names_the_fix():
    message = ast.literal_eval(world_of_one()[-1])  # the repr printed by the probe above
    assert message.startswith("Expected to have finished reduction in the prior iteration before starting a new one.")
    assert "passing the keyword argument `find_unused_parameters=True`" in message
    assert "Parameter indices which did not receive grad for rank 0: 2 3" in message
    assert "set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL" in message


def test_fully_shard_wants_more_than_the_root():
    # the page: shard each block, then the root, as fully_shard's docstring asks
    from torch.distributed.fsdp import fully_shard

    doc = " ".join(fully_shard.__doc__.split())
    assert "Users generally should *not* call :meth:`fully_shard` only on the topmost root module." in doc
    assert "FSDP shards module parameters, gradients, and optimizer states" in doc


FSDP_AVERAGES = """\
import gc
import torch, torch.distributed as dist
import torch.distributed.nn
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Linear(4, 2, bias=False)
alone = nn.Linear(4, 2, bias=False)
alone.load_state_dict(model.state_dict())
mesh = init_device_mesh("cpu", (2,))
fully_shard(model, mesh=mesh)
x = torch.randn(3, 4)  # the same batch on both ranks: the average is one rank's gradient, the sum twice it
model(x).sum().backward()
alone(x).sum().backward()
mine = model.weight.grad.to_local()
right = torch.tensor([int(mine.shape == (1, 4) and torch.allclose(mine, alone.weight.grad[rank : rank + 1]))])
dist.all_reduce(right)  # one rank prints: two ranks printing to one pipe can run their lines together
if rank == 0:
    print("ranks with their own row of the averaged gradient:", right.item())
del model, mine  # then the page's FSDP teardown: nothing may hold the group when it goes
gc.collect()
dist.barrier()
dist.destroy_process_group()
mesh._pg_registry.clear()
"""


def test_fully_shard_gives_each_rank_its_slice_of_the_averaged_gradient(tmp_path):
    probe = tmp_path / "fsdp_averages.py"
    probe.write_text(FSDP_AVERAGES, encoding="utf-8")
    done = torchrun_two_cpu_ranks(str(probe), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["ranks with their own row of the averaged gradient: 2"]


# ---- debugging -------------------------------------------------------------------------------------------------

TORCH_INCLUDE = pathlib.Path(torch.__file__).parent / "include" / "torch" / "csrc" / "distributed" / "c10d"


def test_nccl_variables_and_defaults_the_page_names():
    header = (TORCH_INCLUDE / "ProcessGroupNCCL.hpp").read_text(encoding="utf-8")
    for name in ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_BLOCKING_WAIT"):
        assert f'"{name}"' in header, name
    assert "the default value (3 - SkipCleanUp)" in header  # as the PyTorch docs say: 3 unless set
    assert "kProcessGroupNCCLDefaultTimeout =\n    std::chrono::milliseconds(10 * 60 * 1000);" in header
    from torch.distributed import distributed_c10d

    assert "Default value is 10 minutes for NCCL and 30 minutes for other backends" in (
        distributed_c10d.init_process_group.__doc__)


def test_torch_distributed_debug_is_read_when_torch_distributed_is_imported():
    levels = "import torch.distributed as dist; print(dist.get_debug_level())"
    assert run_python(levels, TORCH_DISTRIBUTED_DEBUG=None) == "DebugLevel.OFF"  # the default
    assert run_python(levels, TORCH_DISTRIBUTED_DEBUG="info") == "DebugLevel.INFO"  # any case
    late = "import os, torch.distributed as dist; os.environ['TORCH_DISTRIBUTED_DEBUG'] = 'DETAIL'; " + levels
    assert run_python(late, TORCH_DISTRIBUTED_DEBUG=None) == "DebugLevel.OFF"  # set too late: not read
    done = finished(start_python(levels, TORCH_DISTRIBUTED_DEBUG="ALL"))
    assert done.returncode != 0
    assert "ValueError: The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL." in done.stderr


DDP_IN_A_WORLD_OF_ONE = """\
import torch, torch.distributed as dist
import torch.distributed.nn
from torch import nn
from torch.nn.parallel import DistributedDataParallel
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
t = torch.ones(1)
dist.all_reduce(t)
print("all_reduce:", t.item(), flush=True)
model = DistributedDataParallel(nn.Linear(2, 1))
print("DDP built", flush=True)
del model
dist.destroy_process_group()
"""


def test_detail_crashes_ddp_on_gloo_in_torch_2_14_1():
    # What the page warns of: with DETAIL, Gloo's collectives still work, but the DDP constructor dies with a
    # segmentation fault (gdb: in c10d::Logger::set_env_variables). With INFO it is built.
    import signal

    crashed = finished(start_python(DDP_IN_A_WORLD_OF_ONE, CUDA_VISIBLE_DEVICES="", TORCH_DISTRIBUTED_DEBUG="DETAIL"))
    assert crashed.returncode == -signal.SIGSEGV
    assert crashed.stdout.splitlines() == ["all_reduce: 1.0"]
    info = run_python(DDP_IN_A_WORLD_OF_ONE, CUDA_VISIBLE_DEVICES="", TORCH_DISTRIBUTED_DEBUG="INFO")
    assert info.splitlines() == ["all_reduce: 1.0", "DDP built"]


# the pages of Several GPUs (one page until 2026-11-29), as the menu lists them
PART_PAGES = nav_part("Several GPUs")


def page_text(lang: str, anchor: str) -> str:
    """The page of Several GPUs that has the section anchor."""
    texts = ((REPO / "docs" / lang / name).read_text(encoding="utf-8") for name in PART_PAGES)
    return next(text for text in texts if f"{{ #{anchor} }}" in text)


def section(lang: str, anchor: str) -> str:
    """The text of one section of Several GPUs, from its heading to the next H2."""
    return page_text(lang, anchor).split(f"{{ #{anchor} }}")[1].split("\n## ")[0]


# What backend a Gloo group runs on, printed after init_process_group, then after a group made later.
BACKEND_TYPES = """\
import torch, torch.distributed as dist
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
cpu = torch.device("cpu")
print(type(dist.group.WORLD._get_backend(cpu)).__name__)
if SET_DETAIL:
    dist.set_debug_level(dist.DebugLevel.DETAIL)
print(type(dist.new_group([0])._get_backend(cpu)).__name__)
dist.destroy_process_group()
"""


def backend_types(debug: str | None, set_detail: bool = False) -> list[str]:
    code = BACKEND_TYPES.replace("SET_DETAIL", str(set_detail))
    return run_python(code, CUDA_VISIBLE_DEVICES="", TORCH_DISTRIBUTED_DEBUG=debug).splitlines()


def test_detail_puts_a_wrapper_in_place_of_the_gloo_backend():
    # The likely cause of the DETAIL crash the page names: under DETAIL, _new_process_group_helper wraps the
    # Gloo backend in a _ProcessGroupWrapper, and DDP's c10d::Logger::set_env_variables (logger.cpp, not
    # shipped in the wheel) static_casts the Gloo backend it looks up to ProcessGroupGloo to read its thread
    # count. With the Gloo backend, not only on the CPU: a Gloo group on GPU tensors is wrapped the same way.
    assert backend_types("INFO") == ["ProcessGroupGloo", "ProcessGroupGloo"]
    assert backend_types("DETAIL") == ["_ProcessGroupWrapper", "_ProcessGroupWrapper"]
    for lang in ("en", "zh"):
        text = section(lang, "debugging")
        assert "_ProcessGroupWrapper" in text and "c10d::Logger::set_env_variables" in text, lang
    assert "One catch with the Gloo backend" in section("en", "debugging")
    assert "用 Gloo 后端时有一个坑" in section("zh", "debugging")


def test_set_debug_level_changes_the_level_for_what_comes_after_it():
    # review 2026-11-28 #20: dist.set_debug_level() changes at run time what the variable sets at import: a group
    # made before the call stays unwrapped, one made after it is wrapped.
    assert backend_types(None, set_detail=True) == ["ProcessGroupGloo", "_ProcessGroupWrapper"]
    for lang in ("en", "zh"):
        assert "`dist.set_debug_level(dist.DebugLevel.DETAIL)`" in section(lang, "debugging"), lang


def test_detail_checks_every_collective_over_a_helper_gloo_group():
    # Why the page calls DETAIL a debugging tool that slows every collective, and counts only two of its three
    # variables as showing more (TORCH_NCCL_ASYNC_ERROR_HANDLING decides what a failure does).
    import inspect

    from torch.distributed import distributed_c10d

    header = (TORCH_INCLUDE / "ProcessGroupWrapper.hpp").read_text(encoding="utf-8")
    assert ("It intercepts\n// collective operations to verify consistency across ranks before dispatching\n"
            "// to the wrapped backend.") in header
    wrapper = inspect.getsource(distributed_c10d._create_process_group_wrapper)
    assert "helper_pg = ProcessGroupGloo(" in wrapper and "_ProcessGroupWrapper(wrapped_pg, helper_pg)" in wrapper
    helper = inspect.getsource(distributed_c10d._new_process_group_helper)
    assert "backend_str in [Backend.GLOO, Backend.NCCL, Backend.XCCL, Backend.UCC]" in helper  # not only Gloo, NCCL
    assert "two show more, the third decides what a failure\ndoes" in section("en", "debugging")
    assert "前两个能提供更多信息，第三个决定出错之后怎么办" in section("zh", "debugging")
    for lang, words in (("en", "for debugging only"), ("zh", "只在调试时使用")):
        assert words in section(lang, "debugging"), lang


def test_pthread_exit_at_shutdown_is_what_python_3_11_to_3_13_do():
    # python/cpython#87135: up to 3.13 a daemon thread that takes the GIL of a finalizing interpreter is stopped
    # with pthread_exit; GH-105805 (3.14) makes it hang instead (the 3.13 backport, #137827, was not merged).
    # torch 2.15.0 runs on 3.11 and later (2.14 on 3.10), so the page's range starts at 3.11.
    metadata = next(pathlib.Path(torch.__file__).parent.parent.glob("torch-*.dist-info")) / "METADATA"
    assert "Requires-Python: >=3.11" in metadata.read_text(encoding="utf-8")
    for lang, words in (("en", "Python 3.11–3.13"), ("zh", "Python 3.11～3.13")):
        text = section(lang, "converting")  # the folded note on why the script imports torch.distributed.nn first
        assert words in text and "3.14" in text and "3.10" not in text, lang


def test_only_the_scripts_from_no_sync_on_bind_the_group_to_the_gpu():
    # ddp-training.md#device-id: which scripts pass device_id on the NCCL path, and which one does not.
    binds = 'dist.init_process_group("nccl", device_id=device)'
    for script in ("ddp_no_sync.py", "ddp_unused.py", "sync_batchnorm.py", "fsdp_train.py"):
        assert binds in (REPO / "snippets/multi_gpu" / script).read_text(encoding="utf-8"), script
    assert "device_id=" not in (REPO / "snippets/multi_gpu/ddp_train.py").read_text(encoding="utf-8")
    # ... so its closing barrier on NCCL takes the path that warns
    import inspect

    from torch.distributed import distributed_c10d

    assert "You can specify `device_id` in `init_process_group` to mute this warning." in (
        inspect.getsource(distributed_c10d.barrier))
    for lang in ("en", "zh"):
        text = section(lang, "device-id")
        assert "(#no-sync)" in text and "`ddp_train.py`" in text, lang
        assert "scripts above" not in text and "上面几个脚本" not in text, lang


# The order of DDP's all-reduces and the backward pass, in a world of one: a comm hook (the default all-reduce,
# which averages) notes each bucket, a backward hook on the ReLU between the two layers notes when backward is there.
DDP_ORDER = """\
import torch, torch.distributed as dist
import torch.distributed.nn
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
events = []


def hook(state, bucket):
    events.append(f"all-reduce of bucket {bucket.index()}")
    return default_hooks.allreduce_hook(None, bucket)


relu = nn.ReLU()
model = DistributedDataParallel(nn.Sequential(nn.Linear(1000, 1000), relu, nn.Linear(1000, 1000)), bucket_cap_mb=1)
model.register_comm_hook(None, hook)
relu.register_full_backward_hook(lambda *_: events.append("backward passes the ReLU"))
for _ in range(2):  # DDP puts every parameter in one bucket for the first step, then rebuilds the buckets
    events.clear()
    model(torch.randn(8, 1000)).sum().backward()
print(events)
del model
dist.destroy_process_group()
"""


def test_ddp_averages_gradients_bucket_by_bucket_during_the_backward_pass():
    # glossary "DistributedDataParallel (DDP)": not after the backward pass, during it. The last layer's bucket
    # is all-reduced before backward has reached the first layer, whose bucket follows.
    order = ast.literal_eval(run_python(DDP_ORDER, CUDA_VISIBLE_DEVICES=""))
    assert order == ["all-reduce of bucket 0", "backward passes the ReLU", "all-reduce of bucket 1"]
    doc = " ".join(torch.nn.parallel.DistributedDataParallel.__doc__.split())
    assert ("will bucket parameters into multiple buckets so that gradient reduction of each bucket can "
            "potentially overlap with backward computation") in doc
    said = {"en": "during every backward pass, bucket by bucket", "zh": "每次反向传播的过程中，梯度按桶"}
    for lang, words in said.items():
        glossary = (REPO / "docs" / lang / "glossary.md").read_text(encoding="utf-8")
        row = next(line for line in glossary.splitlines() if "DistributedDataParallel (DDP)" in line)
        assert words in row and "after every backward" not in row and "反向传播后" not in row, lang


def micro_batches_per_step(start: int, micro_batches: int = 12, accumulation_steps: int = 4) -> list[int]:
    """How many micro-batches each optimizer step follows, with the page's condition and enumerate(start=...)."""
    counts, since = [], 0
    for i, _ in enumerate(range(micro_batches), start=start):
        since += 1
        if i % accumulation_steps == 0:  # the page's sync condition
            counts.append(since)
            since = 0
    return counts


def test_the_no_sync_condition_needs_micro_batches_counted_from_one():
    assert micro_batches_per_step(start=1) == [4, 4, 4]
    assert micro_batches_per_step(start=0) == [1, 4, 4]  # enumerate's default: the first step after one
    # the GPU memory page's loop counts the same way
    loop = (REPO / "snippets/gpu_memory/grad_accumulation_loop.py").read_text(encoding="utf-8")
    assert "enumerate(loader, start=1)" in loop and "if i % accumulation_steps == 0:" in loop
    for lang in ("en", "zh"):
        text = section(lang, "no-sync")
        assert "`for i, batch in enumerate(loader, start=1):`" in text, lang
        assert "`sync = i % accumulation_steps == 0`" in text and "`optimizer.zero_grad()`" in text, lang


NO_GROUP_YET = "Default process group has not been initialized, please make sure to call init_process_group."


@pytest.mark.parametrize("needs_the_group", ["ddp", "sampler", "get_rank"])
def test_what_needs_the_group_before_init_process_group_raises_the_page_s_error(needs_the_group):
    """ddp.md#ddp: DistributedDataParallel, DistributedSampler and dist.get_rank() before
    init_process_group raise the ValueError whose text the page quotes."""
    calls = {
        "ddp": lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2)),
        "sampler": lambda: torch.utils.data.DistributedSampler(list(range(4))),
        "get_rank": torch.distributed.get_rank,
    }
    assert not torch.distributed.is_initialized()
    with pytest.raises(ValueError) as error:
        calls[needs_the_group]()
    assert str(error.value) == NO_GROUP_YET
    for lang in ("en", "zh"):
        assert f"`ValueError: {NO_GROUP_YET}`" in page_text(lang, "ddp")


# ---- a rank that never arrives, the flight recorder, blocking wait, the network interface (issue 38) ----------

TORCH_LIB = pathlib.Path(torch.__file__).parent / "lib"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads PyTorch's Linux libraries")


def test_monitored_barrier_is_gloo_only_and_fails_every_rank_that_waits():
    # distributed-debugging.md#monitored-barrier: Gloo only (a group with a CPU backend), rank 0 stops at the first
    # missing rank unless wait_all_ranks=True, and the other ranks fail in the barrier too
    import inspect

    from torch.distributed import distributed_c10d

    doc = distributed_c10d.monitored_barrier.__doc__
    assert "Note that this collective is only supported with the GLOO backend." in doc
    words = " ".join(doc.split())
    assert "all other ranks would fail in monitored_barrier" in words
    assert "``monitored_barrier`` on rank 0 will throw on the first failed rank" in words
    source = inspect.getsource(distributed_c10d.monitored_barrier)
    assert 'if torch.device("cpu") not in group_to_use._device_types:' in source
    for lang in ("en", "zh"):
        assert "`wait_all_ranks=True`" in section(lang, "monitored-barrier"), lang


FLIGHT_RECORD = """\
import json, torch, torch.distributed as dist
import torch.distributed.nn
from torch._C._distributed_c10d import _dump_fr_trace_json
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
dist.all_reduce(torch.ones(3))
print([entry["profiling_name"] for entry in json.loads(_dump_fr_trace_json()).get("entries", [])])
dist.destroy_process_group()
"""


def test_the_flight_recorder_keeps_2000_entries_unless_told_and_0_turns_it_off():
    # distributed-debugging.md#flight-recorder: the names and the default, from the 2.15.0 headers ...
    recorder = (TORCH_INCLUDE / "FlightRecorder.hpp").read_text(encoding="utf-8")
    assert '{"TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE"}, 2000);' in recorder
    assert "enabled_ = max_entries_ > 0;" in recorder
    nccl = (TORCH_INCLUDE / "ProcessGroupNCCL.hpp").read_text(encoding="utf-8")
    assert ("timeout is enabled. This variable must be set together with\n"
            "// TORCH_NCCL_ENABLE_MONITORING=1 and TORCH_NCCL_TRACE_BUFFER_SIZE > 0.\n"
            "static std::vector<std::string> TORCH_NCCL_DUMP_ON_TIMEOUT = {") in nccl
    # ... and a run: Gloo keeps the same record on the CPU, on with no variable set, off with 0
    unset = {"CUDA_VISIBLE_DEVICES": "", "TORCH_FR_BUFFER_SIZE": None, "TORCH_NCCL_TRACE_BUFFER_SIZE": None}
    assert run_python(FLIGHT_RECORD, **unset) == "['gloo:all_reduce']"
    assert run_python(FLIGHT_RECORD, **{**unset, "TORCH_FR_BUFFER_SIZE": "0"}) == "[]"
    assert run_python(FLIGHT_RECORD, **{**unset, "TORCH_NCCL_TRACE_BUFFER_SIZE": "0"}) == "[]"  # the older name


@linux_only
def test_the_dump_file_variables_and_torchfrtrace_exist():
    # the file-name variables are read in libtorch_cpu, not named in a header; the default name
    # (comm_lib_trace_rank_ under ~/.cache/torch) is cited from PyTorch's FlightRecorder.cpp
    cpu = (TORCH_LIB / "libtorch_cpu.so").read_bytes()
    for name in (b"TORCH_FR_DUMP_TEMP_FILE", b"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", b"XDG_CACHE_HOME"):
        assert b"\0" + name + b"\0" in cpu, name
    from importlib.metadata import entry_points

    (torchfrtrace,) = entry_points(group="console_scripts", name="torchfrtrace")
    assert torchfrtrace.value == "torch.distributed.flight_recorder.fr_trace:main"
    from torch.distributed.flight_recorder import fr_trace  # noqa: F401  (what the command runs)


@linux_only
def test_blocking_wait_starts_no_watchdog_and_raises_in_the_waiting_call():
    # distributed-debugging.md#blocking-wait, from the 2.15.0 header, docstring and NCCL process group's library
    nccl = (TORCH_INCLUDE / "ProcessGroupNCCL.hpp").read_text(encoding="utf-8")
    assert "// Control whether or not wait() is blocking or non-blocking.\n" in nccl
    from torch.distributed import distributed_c10d

    assert "When TORCH_NCCL_BLOCKING_WAIT is set, the process will block and wait for this timeout." in (
        distributed_c10d.init_process_group.__doc__)
    library = TORCH_LIB / "libtorch_cuda.so"
    if not library.exists():
        pytest.skip("a CPU-only build of PyTorch has no NCCL process group")
    cuda = library.read_bytes()
    assert b"TORCH_NCCL_BLOCKING_WAIT is enabled, NO watchdog thread is created.\0" in cuda
    assert b" timed out in blocking wait.\0" in cuda


def test_a_wrong_gloo_socket_ifname_stops_init_process_group(tmp_path):
    # ddp.md#network-interface: the message check_interface.py prints (less its source location) ends a torchrun
    # job's traceback, in init_process_group, and torchrun ends the other process
    done = torchrun_two_cpu_ranks("snippets/multi_gpu/ddp_train.py", tmp_path, GLOO_SOCKET_IFNAME="eht0")
    assert done.returncode != 0
    assert "in init_process_group\n" in done.stderr
    assert ("\nRuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] "
            "ifa != nullptr. Unable to find address for: eht0\n") in done.stderr
    assert "ChildFailedError" in done.stderr


# ---- checkpoints and evaluation under DDP (ddp-checkpoints.md, issue 38) ------------------------------------


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
