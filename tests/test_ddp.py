"""What docs/{en,zh}/ddp.md (DDP with torchrun) says, asserted on the installed PyTorch: the error before
init_process_group, the early import that lets Gloo's threads end, several machines, the network interface."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest
import torch

from codeblocks_plugin import page_blocks, skip_reason
from distributed import page_text, section, torchrun_two_cpu_ranks
from site_pages import REPO, fences, pages

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


def test_pthread_exit_at_shutdown_is_what_python_3_11_to_3_13_do():
    # python/cpython#87135: up to 3.13 a daemon thread that takes the GIL of a finalizing interpreter is stopped
    # with pthread_exit; GH-105805 (3.14) makes it hang instead (the 3.13 backport, #137827, was not merged).
    # torch 2.15.0 runs on 3.11 and later (2.14 on 3.10), so the page's range starts at 3.11.
    metadata = next(pathlib.Path(torch.__file__).parent.parent.glob("torch-*.dist-info")) / "METADATA"
    assert "Requires-Python: >=3.11" in metadata.read_text(encoding="utf-8")
    for lang, words in (("en", "Python 3.11–3.13"), ("zh", "Python 3.11～3.13")):
        text = section(lang, "converting")  # the folded note on why the script imports torch.distributed.nn first
        assert words in text and "3.14" in text and "3.10" not in text, lang


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MULTI_NODE_OUTPUT = """\
world size 2, backend gloo
parameters identical on all ranks: True
loss fell: True"""


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


def test_a_wrong_gloo_socket_ifname_stops_init_process_group(tmp_path):
    # ddp.md#network-interface: the message check_interface.py prints (less its source location) ends a torchrun
    # job's traceback, in init_process_group, and torchrun ends the other process
    done = torchrun_two_cpu_ranks("snippets/multi_gpu/ddp_train.py", tmp_path, GLOO_SOCKET_IFNAME="eht0")
    assert done.returncode != 0
    assert "in init_process_group\n" in done.stderr
    assert ("\nRuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:84] "
            "ifa != nullptr. Unable to find address for: eht0\n") in done.stderr
    assert "ChildFailedError" in done.stderr


def test_a_comma_separated_gloo_socket_ifname_is_a_list_gloo_trains_with(tmp_path):
    # ddp.md#network-interface: PyTorch's docs allow "eth0,eth1,..." (used round-robin); the loopback twice works
    check = subprocess.run([sys.executable, "snippets/multi_gpu/check_interface.py"], cwd=REPO, capture_output=True,
                           env=dict(os.environ, GLOO_SOCKET_IFNAME="lo,lo"), text=True, timeout=300)
    assert check.stdout == "Gloo can use lo,lo\n", check.stderr
    done = torchrun_two_cpu_ranks("snippets/multi_gpu/ddp_train.py", tmp_path, GLOO_SOCKET_IFNAME="lo,lo")
    assert done.returncode == 0, done.stderr[-3000:]
    for lang in ("en", "zh"):
        assert "`lo,lo`" in section(lang, "network-interface"), lang
