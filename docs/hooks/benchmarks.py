"""Benchmark records rendered into the pages at build time.

Every docs/data/benchmarks/*.json (written by snippets/mnist/bench.py) is checked against
docs/data/benchmark.schema.json; one bad record stops the build with a message naming the file and
the field. A page line `<!-- benchmarks -->` becomes, in the page's language: a table of the latest
record per device, pipeline and batch size (with its provenance), a bar chart drawn here with
matplotlib (inline SVG in the page's text colour, so it reads in light and dark mode), the speed-up
and accuracy agreement computed from the records, and a note while no GPU record exists.
"""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path, PurePosixPath

import jsonschema
from jsonschema.exceptions import best_match
from mkdocs.exceptions import PluginError

from page_source import LANGUAGES

PLACEHOLDER = "<!-- benchmarks -->"
LADDER = ("dataloader", "dataloader-tuned", "resident")
TOLERANCE = 0.5  # accuracy points within which the pipelines must agree
INK = "#010203"  # drawn in this colour, then swapped for currentColor: the SVG follows the text colour

TEXT = {
    "en": {
        "headers": ("Pipeline", "Batch size", "s/epoch (median)", "Images/s", "Test accuracy",
                    "PyTorch · date (UTC) · commit"),
        "cpu": "{name} (CPU, {cores} cores, {threads} thread(s) per op)",
        "gpu": "{name} ({kind})",
        "list_sep": ", ",
        "dirty": "\\* the checkout had changes not yet in that commit.",
        "method": "Each row is the latest record for its device, pipeline and batch size: the median of "
        "{epochs} timed epoch(s) after {warmup} warm-up epoch(s), on the {images} training images; the test "
        "accuracy is measured on the 10 000 test images after the last epoch.",
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
        "caption": "Training images per second (log scale), latest record per device and pipeline; longer is "
        "faster.",
        "chart_label": "Bar chart of training images per second for each device and pipeline",
        "no_gpu_title": "No GPU measurement yet",
        "no_gpu": "No GPU measurement has been published yet: every row above was measured on a CPU. GPU rows "
        "appear here once the GPU job has run `python snippets/mnist/bench.py --device cuda` and its records "
        "have been merged.",
        "none": "No benchmark record has been published yet.",
    },
    "zh": {
        "headers": ("数据管线", "批量大小", "每轮秒数（中位数）", "图像/秒", "测试准确率",
                    "PyTorch · 日期（UTC）· 提交"),
        "cpu": "{name}（CPU，{cores} 核，每个运算 {threads} 个线程）",
        "gpu": "{name}（{kind}）",
        "list_sep": "、",
        "dirty": "\\* 运行时的检出目录含有尚未提交的改动。",
        "method": "每一行是该设备、数据管线与批量大小组合的最新记录：先跑 {warmup} 轮预热（不计时），再取 {epochs} "
        "轮计时的中位数，每轮 {images} 张训练图像；测试准确率在最后一轮之后于 10 000 张测试图像上测得。",
        "older": "另有 {n} 条较早的记录保存在 `docs/data/benchmarks/` 中，未在此列出。",
        "speedup": "在 **{device}** 上（批量大小 {batch}），常驻数据管线每轮 {fast:.2f} 秒，原文的 DataLoader 写法每轮 "
        "{slow:.2f} 秒：**速度是它的 {ratio:.1f} 倍**。",
        "tuned": "在 **{device}** 上（批量大小 {batch}），调优后的 DataLoader 每轮 {tuned:.2f} 秒，"
        "普通写法每轮 {slow:.2f} 秒：{verdict}。",
        "tuned_faster": "**速度是普通写法的 {ratio:.1f} 倍**",
        "tuned_slower": "**用时反而是普通写法的 {ratio:.1f} 倍**；只有在有空闲的 CPU 核来运行子进程时，它们才划算",
        "agree": "在 **{device}** 上，各数据管线的测试准确率（{values}）最多相差 {spread:.2f} 个百分点："
        "**在 {tol} 个百分点之内一致**。",
        "disagree": "在 **{device}** 上，各数据管线的测试准确率（{values}）相差 {spread:.2f} 个百分点："
        "**没有**在 {tol} 个百分点之内一致。",
        "caption": "每秒训练图像数（对数刻度），每个设备与数据管线取最新记录；条越长越快。",
        "chart_label": "各设备与数据管线每秒训练图像数的条形图",
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


def load_records(folder: Path, schema_file: Path, shown_from: Path | None = None) -> list[dict]:
    """Every record in folder, each checked against the schema; PluginError names the first bad one."""
    validator = jsonschema.Draft202012Validator(json.loads(schema_file.read_text(encoding="utf-8")))
    records = []
    for path in sorted(folder.glob("*.json")):
        name = path.relative_to(shown_from).as_posix() if shown_from else path.name
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise PluginError(f"benchmark record {name}: not valid JSON ({error})") from None
        error = best_match(validator.iter_errors(record))
        if error is not None:
            raise PluginError(f"benchmark record {name}: field '{_field(error)}': {error.message}")
        records.append(record)
    return records


def latest(records: list[dict]) -> tuple[list[dict], int]:
    """The newest record per (device, pipeline, batch size), in display order, and how many were older."""
    newest: dict[tuple, dict] = {}
    for r in sorted(records, key=lambda r: r["date"]):
        newest[(r["device_kind"], r["device_name"], r["pipeline"], r["batch_size"])] = r
    shown = sorted(newest.values(), key=lambda r: (r["device_kind"] != "cpu", r["device_kind"], r["device_name"],
                                                   r["batch_size"], LADDER.index(r["pipeline"])))
    return shown, len(records) - len(shown)


# ---- rendering --------------------------------------------------------------------------------------


def _device(r: dict, t: dict) -> str:
    if r["device_kind"] == "cpu":
        return t["cpu"].format(name=r["device_name"], cores=r["cpu_cores"], threads=r["torch_threads"])
    return t["gpu"].format(name=r["device_name"], kind=r["device_kind"])


def _commit(r: dict) -> str:
    if not r["commit"]:
        return "—"
    return f"`{r['commit'][:7]}`" + ("\\*" if r["commit_dirty"] else "")


def tables(shown: list[dict], t: dict) -> list[str]:
    """One table per device (and CPU thread count), under a line naming it."""
    groups: dict[tuple, list[dict]] = {}
    for r in shown:
        groups.setdefault((r["device_kind"], r["device_name"], r["cpu_cores"], r["torch_threads"]), []).append(r)
    out = []
    for rows in groups.values():
        lines = ["| " + " | ".join(t["headers"]) + " |", "|---|" + "--:|" * 4 + "---|"]
        for r in rows:
            cells = (f"`{r['pipeline']}`", str(r["batch_size"]), f"{r['median_seconds_per_epoch']:.2f}",
                     f"{r['images_per_second']:,.0f}", f"{r['test_accuracy']:.2f} %",
                     f"{r['torch_version']}<br>{r['date'][:10]} · {_commit(r)}")
            lines.append("| " + " | ".join(cells) + " |")
        out += [f"**{_device(rows[0], t)}**", "\n".join(lines)]
    return out


def findings(shown: list[dict], t: dict) -> list[str]:
    """Speed-up of resident over dataloader and accuracy agreement, per device, computed from the records."""
    lines = []
    groups: dict[tuple, list[dict]] = {}
    for r in shown:  # records comparable for accuracy: same device, batch size, epochs and seed
        key = (r["device_kind"], r["device_name"], r["batch_size"], r["epochs"] + r["warmup_epochs"], r["seed"])
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


def chart_svg(shown: list[dict], label: str) -> str:
    """Horizontal bars of images per second, drawn in INK and returned as an inline <svg> element."""
    import matplotlib  # here, not at the top: a build without records does not pay for it
    from matplotlib.figure import Figure  # a bare Figure needs no GUI backend

    colours = {"dataloader": "#9e9e9e", "dataloader-tuned": "#ffab40", "resident": "#ff5722"}
    names = [f"{r['device_name']} · {r['pipeline']} · bs {r['batch_size']}" for r in shown]
    values = [r["images_per_second"] for r in shown]
    with matplotlib.rc_context({"svg.hashsalt": "benchmarks", "svg.fonttype": "path", "font.size": 10,
                                "text.color": INK, "axes.edgecolor": INK, "axes.labelcolor": INK,
                                "xtick.color": INK, "ytick.color": INK}):
        fig = Figure(figsize=(8, 0.45 * len(shown) + 1.0))
        ax = fig.add_subplot()
        y = range(len(shown))[::-1]
        ax.barh(y, values, color=[colours[r["pipeline"]] for r in shown], height=0.6)
        ax.set_yticks(list(y), names)
        ax.set_xscale("log")
        ax.set_xlim(min(values) / 2, max(values) * 4)
        ax.set_xlabel("images / s")
        for yi, v in zip(y, values, strict=True):
            ax.text(v * 1.08, yi, f"{v:,.0f}", va="center")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        fig.patch.set_alpha(0)
        ax.patch.set_alpha(0)
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]  # drop the XML declaration and doctype
    svg = re.sub(r"<metadata>.*?</metadata>|<!--.*?-->|<style type=\"text/css\">.*?</style>", "", svg, flags=re.S)
    # natural size (8 inches, as drawn) where there is room, shrunk to the column where there is not
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(label)}" '
                      'style="max-width: 100%; height: auto" ', 1)
    svg = svg.replace(INK, "currentColor")
    return "\n".join(line for line in svg.splitlines() if line.strip())


def render(records: list[dict], lang: str) -> str:
    t = TEXT[lang]
    if not records:
        return t["none"] + "\n\n" + _no_gpu(t)
    shown, older = latest(records)
    parts = tables(shown, t)
    notes = []
    if any(r["commit_dirty"] for r in shown):
        notes.append(t["dirty"])
    first = shown[0]
    images = f"{first['train_images']:,}".replace(",", " ")
    notes.append(t["method"].format(epochs=first["epochs"], warmup=first["warmup_epochs"], images=images))
    if older:
        notes.append(t["older"].format(n=older))
    parts += notes
    parts += [f"- {line}" for line in findings(shown, t)]
    parts.append(f'<figure class="benchmark-chart">\n{chart_svg(shown, t["chart_label"])}\n'
                 f"<figcaption>{html.escape(t['caption'])}</figcaption>\n</figure>")
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
