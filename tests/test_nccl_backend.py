"""What docs/{en,zh}/nccl-backend.md (The NCCL backend in PyTorch 2.15) says, asserted on the installed PyTorch:
which value of TORCH_DIST_USE_NCCL2 brings the legacy class back, the mixed group without GPUs, which TORCH_NCCL_*
variables the code of each class names, and TORCH_CPP_LOG_LEVEL."""

from __future__ import annotations

import re

import pytest
import torch

from distributed import BINUTILS, TORCH_LIB, function, functions, machine_code, run_python, section, start_python
from site_build import finished

NEW = "nccl2 requires at least one CUDA device"
LEGACY = "ProcessGroupNCCL is only supported with GPUs, no GPUs found!"
no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="the classes' refusals show only where no GPU is")

WORLD_OF_ONE = """\
import torch.distributed as dist
try:
    dist.init_process_group({backend!r}, store=dist.HashStore(), rank=0, world_size=1)
except (RuntimeError, ValueError) as error:
    print(error)
"""


@no_gpu
@pytest.mark.parametrize(("value", "refusal"), [("0", LEGACY), ("1", NEW), ("false", NEW), ("", NEW), (None, NEW)])
def test_only_the_value_0_brings_the_legacy_class_back(value, refusal):
    # nccl-backend.md#nccl2: "Only the value 0 brings the legacy class back; any other value, or none, keeps the
    # new one"
    assert run_python(WORLD_OF_ONE.format(backend="nccl"), TORCH_DIST_USE_NCCL2=value) == refusal


@no_gpu
def test_the_variable_is_read_the_first_time_a_group_asks_for_nccl():
    # set after import but before the first group: still read; set after the first "nccl" group: too late
    late = ("import os\n" + WORLD_OF_ONE.format(backend="nccl") + "os.environ['TORCH_DIST_USE_NCCL2'] = '0'\n"
            + WORLD_OF_ONE.format(backend="nccl"))
    assert run_python(late, TORCH_DIST_USE_NCCL2=None).splitlines() == [NEW, NEW]
    early = ("import os, torch.distributed\nos.environ['TORCH_DIST_USE_NCCL2'] = '0'\n"
             + WORLD_OF_ONE.format(backend="nccl"))
    assert run_python(early, TORCH_DIST_USE_NCCL2=None) == LEGACY


@no_gpu
@pytest.mark.parametrize(("backend", "refusal"), [("cpu:gloo,cuda:nccl", NEW), ("cpu:gloo,cuda:nccl-legacy", LEGACY)])
def test_a_mixed_group_without_gpus_fails_at_once_and_names_the_class(backend, refusal):
    # nccl-backend.md#mixed-group: no fallback to the CPU half; and #nccl2: the mixed form takes "nccl-legacy"
    assert run_python(WORLD_OF_ONE.format(backend=backend)) == refusal


def _variables_named_by(code: list[str], namespace: str) -> set[str]:
    """The c10d TORCH_NCCL_* names whose address code in functions of `namespace` loads (objdump -C lines)."""
    names, inside = set(), False
    for line in code:
        if re.match(r"^[0-9a-f]+ <.*>:$", line):
            inside = f"<{namespace}::" in line
        elif inside:
            names.update(re.findall(r"<c10d::(TORCH_NCCL_[A-Z_]+)>", line))
    return names


@BINUTILS
def test_which_torch_nccl_variables_the_code_of_each_class_names():
    # nccl-backend.md#variables: no header lists what the 2.15 class reads, so its code is read. Every function of
    # c10d::nccl2 is disassembled (they lie together, a few .cold parts aside), and every TORCH_NCCL_* name whose
    # address they load is listed; the legacy class's constructor, watchdog and heartbeat monitor likewise.
    library = TORCH_LIB / "libtorch_cuda.so"
    if not library.exists():
        pytest.skip("a CPU-only build of PyTorch has no NCCL process group")
    nccl2 = tuple((a, s) for a, s, name in functions(library)
                  if name.startswith("_ZN4c10d5nccl2") and not name.endswith(".cold"))
    new = _variables_named_by(machine_code(library, nccl2), "c10d::nccl2")
    assert new == {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_BLOCKING_WAIT", "TORCH_NCCL_ENABLE_TIMING",
                   "TORCH_NCCL_CUDA_EVENT_CACHE", "TORCH_NCCL_HIGH_PRIORITY", "TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC"}
    legacy_parts = ("_ZN4c10d16ProcessGroupNCCLC2E", "_ZN4c10d16ProcessGroupNCCL8WatchdogC2E",
                    "_ZN4c10d16ProcessGroupNCCL16HeartbeatMonitorC2E")
    legacy_code = [line for part in legacy_parts for line in machine_code(library, (function(library, part),))]
    legacy = _variables_named_by(legacy_code, "c10d::ProcessGroupNCCL")
    only_legacy = {"TORCH_NCCL_DESYNC_DEBUG", "TORCH_NCCL_NAN_CHECK", "TORCH_NCCL_ENABLE_MONITORING",
                   "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "TORCH_NCCL_DUMP_ON_TIMEOUT", "TORCH_NCCL_TRACE_BUFFER_SIZE"}
    assert only_legacy <= legacy and not only_legacy & new
    # #variables: the legacy class names no TORCH_FR_* list, so TORCH_FR_DUMP_ON_TIMEOUT does not reach it
    assert not any("<c10d::TORCH_FR_" in line for line in legacy_code)
    for lang in ("en", "zh"):
        text = section(lang, "variables")
        for name in (new | only_legacy) - {"TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC"}:
            assert f"`{name}`" in text, (lang, name)


def test_torch_cpp_log_level_shows_c10d_info_lines_and_refuses_a_bad_value():
    # nccl-backend.md#logs: INFO lines start with "[I" and name the source file; the C++ layer of c10d logs them
    tcp = ("import torch.distributed as dist\nstore = dist.TCPStore('127.0.0.1', 0, 1, True)\n"
           "dist.init_process_group('gloo', store=store, rank=0, world_size=1)\ndist.destroy_process_group()\n")
    quiet = finished(start_python(tcp, TORCH_CPP_LOG_LEVEL=None))
    loud = finished(start_python(tcp, TORCH_CPP_LOG_LEVEL="INFO"))
    assert quiet.returncode == loud.returncode == 0
    assert not re.search(r"^\[I\d{4} ", quiet.stderr, re.M)
    assert re.search(r"^\[I\d{4} [\d:.]+ socket\.cpp:\d+\] \[c10d\] ", loud.stderr, re.M), loud.stderr[-2000:]
    bad = finished(start_python("import torch", TORCH_CPP_LOG_LEVEL="DEBUG"))
    assert bad.returncode == 0  # reported, not fatal
    assert ("`TORCH_CPP_LOG_LEVEL` environment variable cannot be parsed. Valid values are `INFO`, `WARNING`, "
            "`ERROR`, and `FATAL` or their numerical equivalents `0`, `1`, `2`, and `3`.") in bad.stderr


@BINUTILS
def test_the_recording_hook_dumps_on_failure_under_the_dump_variable():
    # nccl-backend.md#variables: TORCH_NCCL_DUMP_ON_TIMEOUT reaches the new class through the recording hook; the
    # hook's abort path loads the list {"TORCH_FR_DUMP_ON_TIMEOUT", "TORCH_NCCL_DUMP_ON_TIMEOUT"} (FlightRecorder.hpp,
    # pinned in tests/data/citations.yml)
    library = TORCH_LIB / "libtorch_cpu.so"
    code = machine_code(library, (function(library, "_ZN4c10d18FlightRecorderHook7onAbortEv"),))
    loads = set(re.findall(r"<c10d::(TORCH_[A-Z_]+)>", "\n".join(code)))
    assert "TORCH_FR_DUMP_ON_TIMEOUT" in loads, loads


def test_the_wheels_carry_the_nccl_the_page_names():
    # nccl-backend.md#variables: "the NCCL library itself (2.30.7 in the 2.15.0 wheels)"
    assert torch.cuda.nccl.version() == (2, 30, 7)
