"""Benchmark records rendered into the pages at build time.

Every docs/data/benchmarks/*.json (written by snippets/mnist/bench.py) is checked against
docs/data/benchmark.schema.json; one bad record stops the build with a message naming the file and
the field. A page line `<!-- benchmarks -->` becomes, in the page's language: one table per device
with the latest record per pipeline and batch size (with its provenance), the findings computed from
the records (speed-ups, accuracy agreement, time per training step, CPU against GPU at each batch
size, the ladder's targets), a line chart of seconds per epoch against batch size drawn here with
matplotlib (inline SVG in the page's text colour, so it reads in light and dark mode), and a note
naming every rung and batch size that has no record yet. No number on the page is typed by hand.
"""

from __future__ import annotations

import html
import io
import json
import math
import re
from pathlib import Path, PurePosixPath

import jsonschema
from jsonschema.exceptions import best_match
from mkdocs.exceptions import PluginError

from page_source import LANGUAGES

PLACEHOLDER = "<!-- benchmarks -->"
# the ladder, in the order of snippets/mnist/train.py's PIPELINES; GPU_ONLY rungs refuse to run on a CPU
LADDER = ("dataloader", "dataloader-tuned", "resident", "resident-graph")
GPU_ONLY = ("resident-graph",)
BATCH_SIZES = (64, 256, 1024)  # bench.py's default --batch-sizes
TOLERANCE = 0.5  # accuracy points within which the pipelines must agree
# the ladder's targets (issue 9), also reported by bench.py's summary; tests keep the two in step
GPU_TARGET_SECONDS = 0.08  # fastest pipeline at batch 64 on a GPU, s/epoch, at most
GPU_TARGET_SPEEDUP = 100  # ... and at least this many times the dataloader pipeline on the same GPU
CPU_TARGET_SPEEDUP = 10  # the best CPU rung against the CPU's dataloader pipeline at batch 64
INK = "#010203"  # drawn in this colour, then swapped for currentColor: the SVG follows the text colour

TEXT = {
    "en": {
        "headers": ("Pipeline", "Batch size", "s/epoch (median)", "ms/step", "Images/s", "Test accuracy",
                    "PyTorch · date (UTC) · commit"),
        "cpu": "{name} (CPU, {cores} cores, {threads} thread(s) per op)",
        "gpu": "{name} ({kind}; host: {cores} CPU cores, {threads} thread(s) per op)",
        "list_sep": ", ",
        "dirty": "\\* the checkout had changes not yet in that commit.",
        "method": "Each row is the latest record for its device, pipeline and batch size: the median of "
        "{epochs} timed epoch(s) after {warmup} warm-up epoch(s), on the {images} training images; ms/step is "
        "that median divided by the optimizer steps of an epoch (the training images divided by the batch "
        "size, rounded up); the test accuracy is measured on the 10 000 test images after the last epoch.",
        "older": "{n} older record(s) are kept in `docs/data/benchmarks/` but not shown.",
        "speedup": "On **{device}** (batch size {batch}), the resident pipeline takes {fast:.2f} s per epoch "
        "against {slow:.2f} s for the guide's DataLoader: **{ratio:.1f}× faster**.",
        "tuned": "On **{device}** (batch size {batch}), the tuned DataLoader takes {tuned:.2f} s per epoch against "
        "{slow:.2f} s for the plain one: {verdict}.",
        "tuned_faster": "**{ratio:.1f}× faster**",
        "tuned_slower": "**{ratio:.1f}× slower**; worker processes only pay off when spare CPU cores can run them",
        "agree": "On **{device}**, the test accuracies ({values}) differ by at most {spread:.2f} points: the "
        "pipelines **agree within {tol} points**.",
        "disagree": "On **{device}**, the test accuracies ({values}) differ by {spread:.2f} points: the "
        "pipelines do **not** agree within {tol} points.",
        "versus_title": "CPU against GPU, batch size by batch size",
        "gpu_slower": "Batch size {batch}: the fastest pipeline on **{gpu}** (`{gp}`, {gs:.3f} s/epoch, "
        "{gms:.3f} ms per step over {steps} steps) is **{ratio:.1f}× slower** than on **{cpu}** (`{cp}`, "
        "{cs:.3f} s/epoch, {cms:.3f} ms per step).",
        "gpu_faster": "Batch size {batch}: the fastest pipeline on **{gpu}** (`{gp}`, {gs:.3f} s/epoch, "
        "{gms:.3f} ms per step over {steps} steps) is **{ratio:.1f}× faster** than on **{cpu}** (`{cp}`, "
        "{cs:.3f} s/epoch, {cms:.3f} ms per step).",
        "one_side": "Batch size {batch}: measured on {have} only, so no comparison yet.",
        "per_step": "On **{device}**, `{pipeline}` costs {steps_list} per step: {span}.",
        "per_step_item": "{ms:.3f} ms at batch {batch}",
        "per_step_span": "between {lo:.3f} and {hi:.3f} ms at every batch size, while an epoch goes from {slow:.3f} "
        "to {fast:.3f} s as the steps drop from {many} to {few}",
        "loader_title": "Where the plain DataLoader's time goes",
        "loader_compare": "`dataloader` at batch {batch}: {ms_gpu:.3f} ms per step on the **{gpu}** host ({gcores} "
        "cores, {gthreads} threads per op) against {ms_cpu:.3f} ms on **{cpu}** ({ccores} cores, {cthreads} threads "
        "per op): {ratio:.1f}× slower.",
        "probe": "**{device}** (`bench.py --probe-loader`, batch {batch}, {steps} steps, {date}): per step "
        "{make:.3f} ms waiting for the batch, {copy:.3f} ms copying it to the device, {train:.3f} ms training "
        "(with the `loss.item()` that waits for the device). One image through the transform: {us:.1f} µs "
        "with {threads} threads per op, {us1:.1f} µs with one.",
        "probe_copy": " One batch copied to the GPU: {pageable:.1f} µs from ordinary (pageable) memory, "
        "{pinned:.1f} µs from pinned memory.",
        "probe_missing": "No `--probe-loader` record yet for **{device}**: the split of its step into making, copying "
        "and training awaits a run of `bench.py --probe-loader` there.",
        "targets_title": "The ladder's targets",
        "gpu_target": "**{device}**, batch 64: fastest pipeline `{pipeline}` at {seconds:.3f} s/epoch (target ≤ "
        "{limit} s) and {speedup:.1f}× the `dataloader` pipeline (target ≥ {want}×), test accuracy "
        "{spread:.2f} points from it (target ≤ {tol}): {verdict}.",
        "cpu_target": "**{device}**: best rung `{pipeline}` at batch {batch}, {seconds:.3f} s/epoch, is "
        "{speedup:.1f}× the `dataloader` pipeline at batch 64 (target ≥ {want}×), test accuracy {spread:.2f} "
        "points from it (target ≤ {tol}): {verdict}.",
        "met": "**met**",
        "not_met": "**not met**",
        "missing_title": "Not measured yet",
        "missing": "No record yet on **{device}** for: {items}. These rows and points appear once "
        "`bench.py` has run there and its records are committed.",
        "missing_item": "`{pipeline}` at batch {batches}",
        "caption": "Seconds per epoch against batch size (both axes logarithmic), latest record per device and "
        "pipeline; solid lines are CPUs, dashed lines GPUs; lower is faster. Where a dashed line runs below a "
        "solid one of the same pipeline, the GPU wins.",
        "chart_label": "Line chart of seconds per epoch against batch size for each device and pipeline",
        "no_gpu_title": "No GPU measurement yet",
        "no_gpu": "No GPU measurement has been published yet: every row above was measured on a CPU. GPU rows "
        "appear here once the GPU job has run `python snippets/mnist/bench.py --device cuda` and its records "
        "have been merged.",
        "none": "No benchmark record has been published yet.",
    },
    "zh": {
        "headers": ("数据流水线", "批量大小", "每轮秒数（中位数）", "每步毫秒", "图像/秒", "测试准确率",
                    "PyTorch · 日期（UTC）· 提交"),
        "cpu": "{name}（CPU，{cores} 核，每个运算 {threads} 个线程）",
        "gpu": "{name}（{kind}；主机 {cores} 个 CPU 核，每个运算 {threads} 个线程）",
        "list_sep": "、",
        "dirty": "\\* 运行时的检出目录含有尚未提交的改动。",
        "method": "每一行是该设备、数据流水线与批量大小组合的最新记录：先跑 {warmup} 轮预热（不计时），再取 {epochs} "
        "轮计时的中位数，每轮 {images} 张训练图像；每步毫秒是这个中位数除以一轮的优化步数（训练图像数除以批量大小，"
        "向上取整）；测试准确率在最后一轮之后于 10 000 张测试图像上测得。",
        "older": "另有 {n} 条较早的记录保存在 `docs/data/benchmarks/` 中，未在此列出。",
        "speedup": "在 **{device}** 上（批量大小 {batch}），常驻数据流水线每轮 {fast:.2f} 秒，原文的 DataLoader "
        "写法每轮 {slow:.2f} 秒：**速度是它的 {ratio:.1f} 倍**。",
        "tuned": "在 **{device}** 上（批量大小 {batch}），调优后的 DataLoader 每轮 {tuned:.2f} 秒，"
        "普通写法每轮 {slow:.2f} 秒：{verdict}。",
        "tuned_faster": "**速度是普通写法的 {ratio:.1f} 倍**",
        "tuned_slower": "**用时反而是普通写法的 {ratio:.1f} 倍**；只有在有空闲的 CPU 核来运行工作进程时，它们才划算",
        "agree": "在 **{device}** 上，各数据流水线的测试准确率（{values}）最多相差 {spread:.2f} 个百分点："
        "**在 {tol} 个百分点之内一致**。",
        "disagree": "在 **{device}** 上，各数据流水线的测试准确率（{values}）相差 {spread:.2f} 个百分点："
        "**没有**在 {tol} 个百分点之内一致。",
        "versus_title": "逐个批量大小比较 CPU 与 GPU",
        "gpu_slower": "批量大小 {batch}：**{gpu}** 上最快的数据流水线（`{gp}`，每轮 {gs:.3f} 秒，{steps} 步中每步 "
        "{gms:.3f} 毫秒）比 **{cpu}** 上最快的（`{cp}`，每轮 {cs:.3f} 秒，每步 {cms:.3f} 毫秒）**慢 {ratio:.1f} 倍**。",
        "gpu_faster": "批量大小 {batch}：**{gpu}** 上最快的数据流水线（`{gp}`，每轮 {gs:.3f} 秒，{steps} 步中每步 "
        "{gms:.3f} 毫秒）比 **{cpu}** 上最快的（`{cp}`，每轮 {cs:.3f} 秒，每步 {cms:.3f} 毫秒）**快 {ratio:.1f} 倍**。",
        "one_side": "批量大小 {batch}：目前只在 {have} 上测过，还无法比较。",
        "per_step": "在 **{device}** 上，`{pipeline}` 每步用时：{steps_list}；{span}。",
        "per_step_item": "批量 {batch} 时 {ms:.3f} 毫秒",
        "per_step_span": "各批量大小下每步都在 {lo:.3f}～{hi:.3f} 毫秒之间，而步数从 {many} 降到 {few} 时，"
        "每轮从 {slow:.3f} 秒降到 {fast:.3f} 秒",
        "loader_title": "普通 DataLoader 的时间花在哪里",
        "loader_compare": "批量 {batch} 的 `dataloader`：在 **{gpu}** 的主机上"
        "（{gcores} 核，每个运算 {gthreads} 个线程）每步 {ms_gpu:.3f} 毫秒，在 **{cpu}** 上（{ccores} 核，"
        "每个运算 {cthreads} 个线程）每步 {ms_cpu:.3f} 毫秒："
        "慢 {ratio:.1f} 倍。",
        "probe": "**{device}**（`bench.py --probe-loader`，批量 {batch}，{steps} 步，{date}）："
        "每步等待批次 {make:.3f} 毫秒，复制到设备 {copy:.3f} 毫秒，"
        "训练 {train:.3f} 毫秒（含等待设备的 `loss.item()`）。一张图像经过变换："
        "每个运算 {threads} 个线程时 {us:.1f} 微秒，一个线程时 {us1:.1f} 微秒。",
        "probe_copy": "把一个批次复制到 GPU：从普通（可分页）内存 {pageable:.1f} 微秒，从锁页内存 {pinned:.1f} 微秒。",
        "probe_missing": "**{device}** 还没有 `--probe-loader` 记录：它每步在做批次、复制和训练上各花多少时间，"
        "要等在那里运行 `bench.py --probe-loader` 之后才知道。",
        "targets_title": "阶梯的目标",
        "gpu_target": "**{device}**，批量 64：最快的数据流水线 `{pipeline}` 每轮 {seconds:.3f} 秒（目标 ≤ {limit} "
        "秒），速度是 `dataloader` 数据流水线的 {speedup:.1f} 倍（目标 ≥ {want} 倍），测试准确率与它相差 "
        "{spread:.2f} 个百分点（目标 ≤ {tol}）：{verdict}。",
        "cpu_target": "**{device}**：最好的一级是批量 {batch} 的 `{pipeline}`，每轮 {seconds:.3f} 秒，速度是批量 64 的 "
        "`dataloader` 数据流水线的 {speedup:.1f} 倍（目标 ≥ {want} 倍），测试准确率与它相差 {spread:.2f} 个百分点"
        "（目标 ≤ {tol}）：{verdict}。",
        "met": "**已达到**",
        "not_met": "**未达到**",
        "missing_title": "尚未测量",
        "missing": "**{device}** 上还没有以下记录：{items}。"
        "`bench.py` 在那里运行并提交记录之后，这些行和数据点才会出现。",
        "missing_item": "批量 {batches} 的 `{pipeline}`",
        "caption": "每轮秒数随批量大小的变化（两轴均为对数刻度），每个设备与数据流水线取最新记录；"
        "实线是 CPU，虚线是 GPU；越低越快。虚线落到同一数据流水线的实线之下，就是 GPU 胜出的地方。",
        "chart_label": "各设备与数据流水线每轮秒数随批量大小变化的折线图",
        "no_gpu_title": "尚无 GPU 测量结果",
        "no_gpu": "目前还没有发布任何 GPU 测量结果：上表各行都是在 CPU 上测得的。GPU 任务运行 "
        "`python snippets/mnist/bench.py --device cuda` 并合并其记录之后，GPU 的数据才会出现在这里。",
        "none": "目前还没有发布任何基准测试记录。",
    },
}


# ---- records ---------------------------------------------------------------------------------------


def _field(error: jsonschema.ValidationError) -> str:
    path = [str(p) for p in error.absolute_path]
    if error.validator == "required" and isinstance(error.instance, dict):
        path.append(next(k for k in error.validator_value if k not in error.instance))
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        path.append(sorted(set(error.instance) - set(error.schema.get("properties", {})))[0])
    return ".".join(path) or "(the whole record)"


def load_records(folder: Path, schema_file: Path, shown_from: Path | None = None,
                 kind: str = "benchmark record") -> list[dict]:
    """Every record in folder, each checked against the schema; PluginError names the first bad one."""
    validator = jsonschema.Draft202012Validator(json.loads(schema_file.read_text(encoding="utf-8")))
    records = []
    for path in sorted(folder.glob("*.json")):
        name = path.relative_to(shown_from).as_posix() if shown_from else path.name
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise PluginError(f"{kind} {name}: not valid JSON ({error})") from None
        error = best_match(validator.iter_errors(record))
        if error is not None:
            raise PluginError(f"{kind} {name}: field '{_field(error)}': {error.message}")
        records.append(record)
    return records


def _device_key(r: dict) -> tuple:
    return r["device_kind"], r["device_name"], r["cpu_cores"], r["torch_threads"]


def latest(records: list[dict]) -> tuple[list[dict], int]:
    """The newest record per (device, pipeline, batch size), in display order, and how many were older."""
    newest: dict[tuple, dict] = {}
    for r in sorted(records, key=lambda r: r["date"]):
        newest[(*_device_key(r), r["pipeline"], r["batch_size"])] = r
    shown = sorted(newest.values(), key=lambda r: (r["device_kind"] != "cpu", r["device_kind"], r["device_name"],
                                                   r["cpu_cores"], r["torch_threads"], r["batch_size"],
                                                   LADDER.index(r["pipeline"])))
    return shown, len(records) - len(shown)


def steps_per_epoch(r: dict) -> int:
    """Optimizer steps in one epoch: every batch is a step, the last one possibly smaller."""
    return math.ceil(r["train_images"] / r["batch_size"])


def ms_per_step(r: dict) -> float:
    return 1000 * r["median_seconds_per_epoch"] / steps_per_epoch(r)


def by_device(shown: list[dict]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for r in shown:
        groups.setdefault(_device_key(r), []).append(r)
    return groups


# ---- rendering --------------------------------------------------------------------------------------


def _device(r: dict, t: dict) -> str:
    key = "cpu" if r["device_kind"] == "cpu" else "gpu"
    return t[key].format(name=r["device_name"], kind=r["device_kind"], cores=r["cpu_cores"], threads=r["torch_threads"])


def _commit(r: dict) -> str:
    if not r["commit"]:
        return "—"
    return f"`{r['commit'][:7]}`" + ("\\*" if r["commit_dirty"] else "")


def table(rows: list[dict], t: dict) -> str:
    lines = ["| " + " | ".join(t["headers"]) + " |", "|---|" + "--:|" * 5 + "---|"]
    for r in rows:
        cells = (f"`{r['pipeline']}`", str(r["batch_size"]), f"{r['median_seconds_per_epoch']:.3f}",
                 f"{ms_per_step(r):.3f}", f"{r['images_per_second']:,.0f}", f"{r['test_accuracy']:.2f} %",
                 f"{r['torch_version']}<br>{r['date'][:10]} · {_commit(r)}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def findings(shown: list[dict], t: dict) -> list[str]:
    """Speed-up of resident over dataloader and accuracy agreement, per device, computed from the records."""
    lines = []
    groups: dict[tuple, list[dict]] = {}
    for r in shown:  # records comparable for accuracy: same device, batch size, epochs and seed
        key = (*_device_key(r), r["batch_size"], r["epochs"] + r["warmup_epochs"], r["seed"])
        groups.setdefault(key, []).append(r)
    for group in groups.values():
        device, batch = group[0]["device_name"], group[0]["batch_size"]
        by_pipeline = {r["pipeline"]: r for r in group}
        if {"dataloader", "resident"} <= by_pipeline.keys():
            slow = by_pipeline["dataloader"]["median_seconds_per_epoch"]
            fast = by_pipeline["resident"]["median_seconds_per_epoch"]
            lines.append(t["speedup"].format(device=device, batch=batch, slow=slow, fast=fast, ratio=slow / fast))
        if {"dataloader", "dataloader-tuned"} <= by_pipeline.keys():
            slow = by_pipeline["dataloader"]["median_seconds_per_epoch"]
            tuned = by_pipeline["dataloader-tuned"]["median_seconds_per_epoch"]
            verdict = (t["tuned_faster"].format(ratio=slow / tuned) if tuned <= slow
                       else t["tuned_slower"].format(ratio=tuned / slow))
            lines.append(t["tuned"].format(device=device, batch=batch, tuned=tuned, slow=slow, verdict=verdict))
        if len(group) > 1:
            accuracies = [r["test_accuracy"] for r in group]
            spread = max(accuracies) - min(accuracies)
            values = t["list_sep"].join(f"`{r['pipeline']}` {r['test_accuracy']:.2f} %" for r in group)
            verdict = "agree" if spread <= TOLERANCE + 1e-9 else "disagree"
            lines.append(t[verdict].format(device=device, values=values, spread=spread, tol=TOLERANCE))
    return lines


def _fastest(rows: list[dict]) -> dict:
    return min(rows, key=lambda r: r["median_seconds_per_epoch"])


def versus(shown: list[dict], t: dict) -> list[str]:
    """Per batch size, the fastest pipeline of each GPU against that of each CPU, with the time per step."""
    devices = by_device(shown)
    cpus = [k for k in devices if k[0] == "cpu"]
    gpus = [k for k in devices if k[0] != "cpu"]
    if not cpus or not gpus:
        return []
    lines = []
    for batch in sorted({r["batch_size"] for r in shown}):
        at = {k: [r for r in devices[k] if r["batch_size"] == batch] for k in devices}
        have_cpu = [k for k in cpus if at[k]]
        have_gpu = [k for k in gpus if at[k]]
        if not have_cpu or not have_gpu:
            names = t["list_sep"].join(k[1] for k in have_cpu + have_gpu)
            lines.append(t["one_side"].format(batch=batch, have=names))
            continue
        for g in have_gpu:
            for c in have_cpu:
                gr, cr = _fastest(at[g]), _fastest(at[c])
                gs, cs = gr["median_seconds_per_epoch"], cr["median_seconds_per_epoch"]
                key, ratio = ("gpu_slower", gs / cs) if gs > cs else ("gpu_faster", cs / gs)
                lines.append(t[key].format(batch=batch, gpu=g[1], cpu=c[1], gp=gr["pipeline"], cp=cr["pipeline"],
                                           gs=gs, cs=cs, gms=ms_per_step(gr), cms=ms_per_step(cr),
                                           steps=steps_per_epoch(gr), ratio=ratio))
    return lines


def per_step(shown: list[dict], t: dict) -> list[str]:
    """For each GPU pipeline measured at two batch sizes or more: how the time per step stays put."""
    lines = []
    for key, rows in by_device(shown).items():
        if key[0] == "cpu":
            continue
        for pipeline in reversed(LADDER):  # the fastest rung: least besides the step itself
            runs = sorted((r for r in rows if r["pipeline"] == pipeline), key=lambda r: r["batch_size"])
            if len(runs) < 2:
                continue
            ms = [ms_per_step(r) for r in runs]
            items = t["list_sep"].join(t["per_step_item"].format(ms=m, batch=r["batch_size"])
                                       for m, r in zip(ms, runs, strict=True))
            span = t["per_step_span"].format(lo=min(ms), hi=max(ms), slow=runs[0]["median_seconds_per_epoch"],
                                             fast=runs[-1]["median_seconds_per_epoch"],
                                             many=steps_per_epoch(runs[0]), few=steps_per_epoch(runs[-1]))
            lines.append(t["per_step"].format(device=key[1], pipeline=pipeline, steps_list=items, span=span))
            break  # one line per GPU
    return lines


def loader_split(shown: list[dict], t: dict) -> list[str]:
    """The plain DataLoader per step on each GPU host against each CPU, and its --probe-loader split."""
    devices = by_device(shown)
    plain = {k: {r["batch_size"]: r for r in rows if r["pipeline"] == "dataloader"} for k, rows in devices.items()}
    lines = []
    for g in (k for k in devices if k[0] != "cpu"):
        for c in (k for k in devices if k[0] == "cpu"):
            for batch in sorted(plain[g].keys() & plain[c].keys()):
                gr, cr = plain[g][batch], plain[c][batch]
                lines.append(t["loader_compare"].format(
                    batch=batch, gpu=g[1], cpu=c[1], ms_gpu=ms_per_step(gr), ms_cpu=ms_per_step(cr),
                    gcores=g[2], gthreads=g[3], ccores=c[2], cthreads=c[3],
                    ratio=ms_per_step(gr) / ms_per_step(cr)))
    for runs in plain.values():
        if not runs:
            continue
        probed = [r for r in runs.values() if "loader_probe" in r]
        if not probed:
            lines.append(t["probe_missing"].format(device=_device(next(iter(runs.values())), t)))
            continue
        r = min(probed, key=lambda r: r["batch_size"])
        p = r["loader_probe"]
        line = t["probe"].format(device=_device(r, t), batch=r["batch_size"], steps=p["steps"], date=r["date"][:10],
                                 make=p["make_batch_ms"], copy=p["copy_batch_ms"], train=p["train_step_ms"],
                                 us=p["transform_us_per_image"], us1=p["transform_us_per_image_one_thread"],
                                 threads=p["threads"])
        if p["copy_us_pageable"] is not None and p["copy_us_pinned"] is not None:
            line += t["probe_copy"].format(pageable=p["copy_us_pageable"], pinned=p["copy_us_pinned"])
        lines.append(line)
    return lines


def targets(shown: list[dict], t: dict) -> list[str]:
    """The ladder's targets, checked against the records of every device that has a dataloader baseline."""
    lines = []
    for key, rows in by_device(shown).items():
        base = next((r for r in rows if r["pipeline"] == "dataloader" and r["batch_size"] == 64), None)
        if base is None:
            continue
        if key[0] == "cpu":
            best = _fastest(rows)
            speedup = base["median_seconds_per_epoch"] / best["median_seconds_per_epoch"]
            spread = abs(best["test_accuracy"] - base["test_accuracy"])
            ok = speedup >= CPU_TARGET_SPEEDUP and spread <= TOLERANCE + 1e-9
            lines.append(t["cpu_target"].format(device=key[1], pipeline=best["pipeline"], batch=best["batch_size"],
                                                seconds=best["median_seconds_per_epoch"], speedup=speedup,
                                                want=CPU_TARGET_SPEEDUP, spread=spread, tol=TOLERANCE,
                                                verdict=t["met" if ok else "not_met"]))
        else:
            best = _fastest([r for r in rows if r["batch_size"] == 64])
            seconds = best["median_seconds_per_epoch"]
            speedup = base["median_seconds_per_epoch"] / seconds
            spread = abs(best["test_accuracy"] - base["test_accuracy"])
            ok = seconds <= GPU_TARGET_SECONDS and speedup >= GPU_TARGET_SPEEDUP and spread <= TOLERANCE + 1e-9
            lines.append(t["gpu_target"].format(device=key[1], pipeline=best["pipeline"], seconds=seconds,
                                                limit=GPU_TARGET_SECONDS, speedup=speedup, want=GPU_TARGET_SPEEDUP,
                                                spread=spread, tol=TOLERANCE, verdict=t["met" if ok else "not_met"]))
    return lines


def missing(shown: list[dict], t: dict) -> list[str]:
    """Every rung and batch size of the ladder without a record, per device that has any."""
    lines = []
    for key, rows in by_device(shown).items():
        have = {(r["pipeline"], r["batch_size"]) for r in rows}
        items = []
        for pipeline in LADDER:
            if key[0] == "cpu" and pipeline in GPU_ONLY:
                continue
            absent = [b for b in BATCH_SIZES if (pipeline, b) not in have]
            if absent:
                items.append(t["missing_item"].format(pipeline=pipeline, batches="/".join(map(str, absent))))
        if items:
            lines.append(t["missing"].format(device=_device(rows[0], t), items=t["list_sep"].join(items)))
    return lines


def chart_series(shown: list[dict]) -> dict[tuple, list[tuple[int, float]]]:
    """The chart's lines: (device, pipeline) -> [(batch size, s/epoch), ...] in batch order."""
    series = {}
    for key, rows in by_device(shown).items():
        for pipeline in LADDER:
            runs = sorted((r for r in rows if r["pipeline"] == pipeline), key=lambda r: r["batch_size"])
            if runs:
                series[key, pipeline] = [(r["batch_size"], r["median_seconds_per_epoch"]) for r in runs]
    return series


def chart_svg(shown: list[dict], label: str) -> str:
    """Seconds per epoch against batch size, one line per device and pipeline, as an inline <svg> element."""
    import matplotlib  # here, not at the top: a build without records does not pay for it
    from matplotlib.figure import Figure  # a bare Figure needs no GUI backend

    colours = {"dataloader": "#9e9e9e", "dataloader-tuned": "#ffab40", "resident": "#ff5722",
               "resident-graph": "#7c4dff"}
    with matplotlib.rc_context({"svg.hashsalt": "benchmarks", "svg.fonttype": "path", "font.size": 10,
                                "text.color": INK, "axes.edgecolor": INK, "axes.labelcolor": INK,
                                "xtick.color": INK, "ytick.color": INK}):
        fig = Figure(figsize=(8, 5))
        ax = fig.add_subplot()
        for (key, pipeline), points in chart_series(shown).items():
            xs, ys = zip(*points, strict=True)
            style, marker = ("-", "o") if key[0] == "cpu" else ("--", "s")
            ax.plot(xs, ys, style, marker=marker, color=colours[pipeline], linewidth=1.8,
                    label=f"{key[1]} ({key[0]}) · {pipeline}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        batches = sorted({r["batch_size"] for r in shown})
        ax.set_xticks(batches, [str(b) for b in batches])
        ax.minorticks_off()
        ax.set_xlabel("batch size")
        ax.set_ylabel("s / epoch (median)")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.patch.set_alpha(0)
        ax.patch.set_alpha(0)
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]  # drop the XML declaration and doctype
    svg = re.sub(r"<metadata>.*?</metadata>|<!--.*?-->|<style type=\"text/css\">.*?</style>", "", svg, flags=re.S)
    # natural size (as drawn) where there is room, shrunk to the column where there is not
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(label)}" '
                      'style="max-width: 100%; height: auto" ', 1)
    svg = svg.replace(INK, "currentColor")
    return "\n".join(line for line in svg.splitlines() if line.strip())


def render(records: list[dict], lang: str) -> str:
    t = TEXT[lang]
    if not records:
        return t["none"] + "\n\n" + _no_gpu(t)
    shown, older = latest(records)
    lines_of = findings(shown, t)
    parts = []
    for rows in by_device(shown).values():
        parts += [f"**{_device(rows[0], t)}**", table(rows, t)]
        mine = [line for line in lines_of if f"**{rows[0]['device_name']}**" in line]
        if mine:
            parts.append("\n".join(f"- {line}" for line in dict.fromkeys(mine)))
    notes = []
    if any(r["commit_dirty"] for r in shown):
        notes.append(t["dirty"])
    first = shown[0]
    images = f"{first['train_images']:,}".replace(",", " ")
    notes.append(t["method"].format(epochs=first["epochs"], warmup=first["warmup_epochs"], images=images))
    if older:
        notes.append(t["older"].format(n=older))
    parts += notes
    compared = versus(shown, t) + per_step(shown, t)
    if compared:
        parts += [f"**{t['versus_title']}**", "\n".join(f"- {line}" for line in compared)]
    split = loader_split(shown, t)
    if split:
        parts += [f"**{t['loader_title']}**", "\n".join(f"- {line}" for line in split)]
    goals = targets(shown, t)
    if goals:
        parts += [f"**{t['targets_title']}**", "\n".join(f"- {line}" for line in goals)]
    parts.append(f'<figure class="benchmark-chart">\n{chart_svg(shown, t["chart_label"])}\n'
                 f"<figcaption>{html.escape(t['caption'])}</figcaption>\n</figure>")
    absent = missing(shown, t)
    if absent:
        parts.append(f'!!! info "{t["missing_title"]}"\n' + "\n\n".join(f"    {line}" for line in absent))
    if not any(r["device_kind"] != "cpu" for r in shown):
        parts.append(_no_gpu(t))
    return "\n\n".join(parts)


def _no_gpu(t: dict) -> str:
    return f'!!! info "{t["no_gpu_title"]}"\n    ' + t["no_gpu"]


# ---- MkDocs events -----------------------------------------------------------------------------------

_records: list[dict] = []


def on_pre_build(config) -> None:
    global _records
    data = Path(config["docs_dir"]) / "data"
    _records = load_records(data / "benchmarks", data / "benchmark.schema.json",
                            shown_from=Path(config["config_file_path"]).parent)


def _language(page) -> str:
    locale = getattr(page.file, "locale", None)  # set by mkdocs-static-i18n
    if locale in LANGUAGES:
        return locale
    first = PurePosixPath(page.file.src_uri).parts[0]
    return first if first in LANGUAGES else LANGUAGES[0]


def on_page_markdown(markdown: str, page, config, files) -> str:
    if PLACEHOLDER not in markdown:
        return markdown
    return markdown.replace(PLACEHOLDER, render(_records, _language(page)))
