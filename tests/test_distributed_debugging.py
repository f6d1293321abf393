"""What docs/{en,zh}/distributed-debugging.md (Hangs and crashes) says, asserted on the installed PyTorch:
TORCH_DISTRIBUTED_DEBUG and DETAIL's wrapper, NCCL's variables and timeouts, monitored_barrier, the flight recorder,
blocking wait."""

from __future__ import annotations

import pytest

from distributed import (
    BINUTILS,
    TORCH_LIB,
    function,
    machine_code,
    run_python,
    section,
    start_python,
    torchrun_two_cpu_ranks,
)
from site_build import finished
from snippet_runs import run_snippet

# What the headers, docstrings and libraries of torch say of NCCL's variables, the flight recorder and blocking wait
# is in tests/data/citations.yml; these are the runs and the page's words.


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


def test_the_page_calls_detail_a_debugging_tool_and_two_variables_the_ones_that_show_more():
    # DETAIL checks every collective over a helper Gloo group (the header and source that say so:
    # tests/data/citations.yml), and TORCH_NCCL_ASYNC_ERROR_HANDLING decides what a failure does.
    assert "two show more, the third decides what a failure\ndoes" in section("en", "debugging")
    assert "前两个让程序多输出一些信息，第三个决定出错后怎么办" in section("zh", "debugging")
    for lang, words in (("en", "for debugging only"), ("zh", "只在调试时使用")):
        assert words in section(lang, "debugging"), lang


def test_the_monitored_barrier_section_names_wait_all_ranks():
    # distributed-debugging.md#monitored-barrier: Gloo only (a group with a CPU backend), rank 0 stops at the first
    # missing rank unless wait_all_ranks=True, and the other ranks fail in the barrier too (tests/data/citations.yml)
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
    # distributed-debugging.md#flight-recorder: the names and the default are the headers' (tests/data/citations.yml);
    # a run: Gloo keeps the same record on the CPU, on with no variable set, off with 0
    unset = {"CUDA_VISIBLE_DEVICES": "", "TORCH_FR_BUFFER_SIZE": None, "TORCH_NCCL_TRACE_BUFFER_SIZE": None}
    assert run_python(FLIGHT_RECORD, **unset) == "['gloo:all_reduce']"
    assert run_python(FLIGHT_RECORD, **{**unset, "TORCH_FR_BUFFER_SIZE": "0"}) == "[]"
    assert run_python(FLIGHT_RECORD, **{**unset, "TORCH_NCCL_TRACE_BUFFER_SIZE": "0"}) == "[]"  # the older name


def test_torchfrtrace_is_the_command_of_the_flight_recorder_s_reader():
    # the file-name variables are read in libtorch_cpu, not named in a header (tests/data/citations.yml); the default
    # name (comm_lib_trace_rank_ under ~/.cache/torch) is cited from PyTorch's FlightRecorder.cpp
    from importlib.metadata import entry_points

    (torchfrtrace,) = entry_points(group="console_scripts", name="torchfrtrace")
    assert torchfrtrace.value == "torch.distributed.flight_recorder.fr_trace:main"
    from torch.distributed.flight_recorder import fr_trace  # noqa: F401  (what the command runs)


@pytest.mark.parametrize("script", ['monitored_barrier.py'])
def test_a_torchrun_script_started_with_plain_python_says_so_in_one_line(script):
    done = run_snippet(f"snippets/multi_gpu/{script}").result(timeout=300)  # `python snippets/multi_gpu/<script>`
    assert done.returncode == 1
    assert done.stderr.strip() == "start it with torchrun, as its docstring shows"


# ---- 2.15's two NCCL backends, monitored_barrier's groups (issue 50) ---------------------------------------------

WHICH_NCCL = """\
from torch.distributed.distributed_c10d import _FR_SELF_RECORDING_BACKENDS, Backend
for name in ("nccl", "nccl-legacy"):
    Backend._ensure_backend_registered(name)
    print(name, Backend._plugins[name.upper()].creator_fn.__name__, name in _FR_SELF_RECORDING_BACKENDS)
"""


def test_nccl_builds_nccl2_unless_told_and_only_the_legacy_class_records_by_itself():
    # distributed-debugging.md#debugging: "nccl" is ProcessGroupNCCL2 in 2.15.0, the earlier class is "nccl-legacy"
    # or "nccl" with TORCH_DIST_USE_NCCL2=0; #flight-recorder: a group whose backend does not record itself gets
    # PyTorch's recording hook (tests/data/citations.yml), which is what keeps nccl2's record
    assert run_python(WHICH_NCCL, TORCH_DIST_USE_NCCL2=None).splitlines() == [
        "nccl _create_nccl2_process_group False", "nccl-legacy _create_nccl_process_group True"]
    assert run_python(WHICH_NCCL, TORCH_DIST_USE_NCCL2="0").splitlines() == [
        "nccl _create_nccl_process_group True", "nccl-legacy _create_nccl_process_group True"]
    for lang in ("en", "zh"):
        text = section(lang, "debugging")
        assert all(f"`{words}`" in text for words in (
            "ProcessGroupNCCL2", 'backend="nccl-legacy"', "TORCH_DIST_USE_NCCL2=0")), lang


def test_the_flight_recorder_recipe_sets_only_where_the_files_go():
    # distributed-debugging.md#flight-recorder: the dump on a timeout is on by default (citations.yml)
    for lang in ("en", "zh"):
        recipe = section(lang, "flight-recorder").split("```shell")[1].split("```")[0]
        assert "export TORCH_FR_DUMP_TEMP_FILE=" in recipe, lang
        assert "DUMP_ON_TIMEOUT" not in recipe and "MONITORING" not in recipe, lang


def test_the_blocking_wait_section_links_the_code_of_both_backends():
    # what each backend's header and library say is in citations.yml
    for lang in ("en", "zh"):
        text = section(lang, "blocking-wait")
        assert "c10d/ProcessGroupNCCL.cpp)" in text and "c10d/nccl2/ProcessGroupNCCL.cpp)" in text, lang


def test_monitored_barrier_takes_a_mixed_default_group_and_names_no_one_when_rank_0_is_stuck(tmp_path):
    # distributed-debugging.md#monitored-barrier: "cpu:gloo,cuda:nccl" gives the group the CPU backend it needs
    # (not run: building its NCCL half needs a GPU); with rank 0 absent, rank 1 learns only that its wait failed
    from torch.distributed.distributed_c10d import BackendConfig

    assert BackendConfig("cpu:gloo,cuda:nccl").get_device_backend_map() == {"cpu": "gloo", "cuda": "nccl"}
    # what monitored_barrier asks is a CPU backend, not a group named "gloo": a "cpu:gloo" group passes
    assert run_python(CPU_GLOO_ALONE) == "cpu:gloo passed"
    probe = tmp_path / "rank_0_stuck.py"
    probe.write_text(RANK_0_STUCK, encoding="utf-8")
    done = torchrun_two_cpu_ranks(str(probe), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("rank 1: Rank 1 successfully reached monitoredBarrier, but received errors "
                                  "while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.")
    for lang in ("en", "zh"):
        assert '`init_process_group("cpu:gloo,cuda:nccl")`' in section(lang, "monitored-barrier"), lang


CPU_GLOO_ALONE = """\
import torch.distributed as dist
dist.init_process_group("cpu:gloo", store=dist.HashStore(), rank=0, world_size=1)
dist.monitored_barrier()
print(dist.get_backend(), "passed")
dist.destroy_process_group()
"""


RANK_0_STUCK = """\
import datetime, time, torch.distributed as dist
dist.init_process_group("gloo")
if dist.get_rank() == 0:
    time.sleep(6)  # stuck elsewhere: it never reaches the barrier
else:
    try:
        dist.monitored_barrier(timeout=datetime.timedelta(seconds=2))
    except RuntimeError as error:
        print(f"rank {dist.get_rank()}:", " ".join(str(error).split()))
dist.destroy_process_group()
"""


NCCL2_CONSTRUCTOR = ("_ZN4c10d5nccl216ProcessGroupNCCLC2EN3c1013intrusive_ptrINS_5StoreENS2_6detail34intrusive_target_"
                     "default_null_typeIS4_EEEEiiNS3_INS_16ProcessGroupNCCL7OptionsENS6_ISA_EEEE")


def _argument_loads(code: list[str], variable: str, getter: str) -> list[str]:
    """The instructions between the call before `variable`'s address is loaded and the call to `getter` after it."""
    (at,) = [i for i, line in enumerate(code) if f"<c10d::{variable}>" in line]
    after = next(i for i in range(at, len(code)) if "\tcall " in code[i])
    before = max((i for i in range(at) if "\tcall " in code[i]), default=-1)
    assert f"<c10d::{getter}(" in code[after], code[after]
    return code[before + 1 : after]


@BINUTILS
def test_nccl2_reads_the_error_handling_and_blocking_wait_variables_with_the_legacy_defaults():
    # distributed-debugging.md#debugging: no header says what nccl2 reads, so its constructor's code is read. Each
    # variable is read by getCvarInt(name, default) or getCvarBool(name, default): the name's address goes to %rdi,
    # the default to %esi
    library = TORCH_LIB / "libtorch_cuda.so"
    if not library.exists():
        pytest.skip("a CPU-only build of PyTorch has no NCCL process group")
    code = machine_code(library, (function(library, NCCL2_CONSTRUCTOR),))
    handling = _argument_loads(code, "TORCH_NCCL_ASYNC_ERROR_HANDLING", "getCvarInt")
    assert any(line.endswith("mov    $0x3,%esi") for line in handling)  # 3 unless set, as in the legacy class
    blocking = _argument_loads(code, "TORCH_NCCL_BLOCKING_WAIT", "getCvarBool")
    assert any(line.endswith("xor    %esi,%esi") for line in blocking)  # off unless set
    for lang in ("en", "zh"):
        assert "`TORCH_NCCL_BLOCKING_WAIT`" in section(lang, "debugging"), lang


@BINUTILS
def test_both_backends_dump_by_default_and_the_legacy_one_reads_only_the_older_name():
    # distributed-debugging.md#flight-recorder: the legacy class's heartbeat monitor reads TORCH_NCCL_DUMP_ON_TIMEOUT
    # (its header's one-name list, tests/data/citations.yml) with true as the default, not the TORCH_FR_ name
    # that PyTorch's recording hook reads: TORCH_FR_DUMP_ON_TIMEOUT=0 leaves the legacy dump on
    library = TORCH_LIB / "libtorch_cuda.so"
    if not library.exists():
        pytest.skip("a CPU-only build of PyTorch has no NCCL process group")
    code = machine_code(library, (function(library, "_ZN4c10d16ProcessGroupNCCL16HeartbeatMonitorC2EPS0_"),))
    dump = _argument_loads(code, "TORCH_NCCL_DUMP_ON_TIMEOUT", "getCvarBool")
    assert any(line.endswith("mov    $0x1,%esi") for line in dump)  # on unless set
    assert not any("<c10d::TORCH_FR_DUMP_ON_TIMEOUT>" in line for line in code)
    # the hook's dump on a failure (the 2.15 default backend's record) reads the TORCH_FR_ list, also true by default
    cpu = TORCH_LIB / "libtorch_cpu.so"
    hook = machine_code(cpu, (function(cpu, "_ZN4c10d18FlightRecorderHook7onAbortEv"),))
    assert any(line.endswith("mov    $0x1,%esi")
               for line in _argument_loads(hook, "TORCH_FR_DUMP_ON_TIMEOUT", "getCvarBool"))
    for lang in ("en", "zh"):
        text = section(lang, "flight-recorder")
        assert ("reads only the older name" if lang == "en" else "旧版后端只认旧名") in text, lang
