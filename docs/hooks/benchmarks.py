"""The MNIST page's measured timings, rendered at build time from the records bench.py writes.

Every docs/data/benchmarks/*.json is checked against docs/data/benchmark.schema.json, whose `pipeline` enum
is the ladder (train.PIPELINES' order); a bad record stops the build naming the file and the field.
`<!-- benchmarks -->` becomes, in the page's language (words: docs/data/text/<lang>/benchmarks.yml), a table
per device with its findings, CPU against GPU, the plain DataLoader's split, the ladder's targets, a chart
of seconds per epoch against batch size (sized for a phone, its CPU/GPU crossover marked, its words the page's
language's) and a box naming what is not measured yet.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import math
import re
from itertools import groupby, pairwise, product
from operator import itemgetter
from pathlib import Path

from site_pages import language_of, load_records, load_text

PLACEHOLDER = "<!-- benchmarks -->"
DATA = Path(__file__).resolve().parents[1] / "data"
SCHEMA = json.loads((DATA / "benchmark.schema.json").read_text(encoding="utf-8"))
LADDER = tuple(SCHEMA["properties"]["pipeline"]["enum"])
CUDA_ONLY = tuple(SCHEMA["$defs"]["cuda_only_pipelines"]["enum"])
BATCH_SIZES = (64, 256, 1024)  # what `make gpu-job` runs: a device's missing points are counted against these
_seconds = itemgetter("median_seconds_per_epoch")
_device_key = itemgetter("device_kind", "device_name", "cpu_cores", "torch_threads")  # one table per device
TARGETS = {  # the ladder's targets, against the same device's dataloader pipeline at batch 64
    "gpu_seconds": 0.08,  # a GPU's fastest pipeline at batch 64: s/epoch, at most,
    "gpu_speedup": 100,  # ... and at least this many times faster
    "cpu_speedup": 10,  # a CPU's best rung at any batch size
    "tolerance": 0.5,  # test accuracy points from it, at most; also how close the pipelines must agree
}


def with_steps(r: dict) -> dict:
    """The record with its optimizer steps per epoch (every batch is one, the last maybe smaller) and ms per step."""
    steps = math.ceil(r["train_images"] / r["batch_size"])
    return {**r, "steps": steps, "ms_per_step": 1000 * r["median_seconds_per_epoch"] / steps}


def latest(records: list[dict]) -> tuple[dict[tuple, list[dict]], int]:
    """The newest record per device, pipeline and batch size (with its steps and ms per step), grouped by device,
    CPUs first; and how many older records are not shown."""
    newest = {(*_device_key(r), r["pipeline"], r["batch_size"]): r for r in sorted(records, key=lambda r: r["date"])}
    order = sorted(
        newest.values(),
        key=lambda r: (r["device_kind"] != "cpu", _device_key(r), r["batch_size"], LADDER.index(r["pipeline"])),
    )
    shown = [with_steps(r) for r in order]
    return {key: list(rows) for key, rows in groupby(shown, _device_key)}, len(records) - len(shown)


def _compare(t: dict, mine: float, other: float) -> str:
    """'2.4× slower' or '2.0× faster', in t's language: mine against other."""
    return t["slower" if mine > other else "faster"].format(ratio=max(mine, other) / min(mine, other))


def _device(r: dict, t: dict) -> str:
    return t["cpu" if r["device_kind"] == "cpu" else "gpu"].format_map(r)


def table(rows: list[dict], t: dict) -> str:
    lines = ["| " + " | ".join(t["headers"]) + " |", "|---|" + "--:|" * 5 + "---|"]
    for r in rows:
        commit = f"`{r['commit'][:7]}`" + ("\\*" if r["commit_dirty"] else "") if r["commit"] else "—"
        lines.append(
            f"| `{r['pipeline']}` | {r['batch_size']} | {_seconds(r):.3f} | {r['ms_per_step']:.3f} | "
            f"{r['images_per_second']:,.0f} | {r['test_accuracy']:.2f} % | {r['torch_version']}<br>"
            f"{r['date'][:10]} · {commit} |"
        )
    # a class of its own, so the stylesheet can fit its seven columns in the content column
    return '<div class="benchmark-table" markdown>\n\n' + "\n".join(lines) + "\n\n</div>"


def findings(rows: list[dict], t: dict) -> list[str]:
    """One device's runs compared per batch size (and epochs, seed): resident and the tuned DataLoader against
    the plain one, and whether the pipelines' test accuracies agree."""
    groups: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        groups.setdefault((r["batch_size"], r["epochs"] + r["warmup_epochs"], r["seed"]), {})[r["pipeline"]] = r
    lines = []
    for at in groups.values():
        slow, fast, tuned = at.get("dataloader"), at.get("resident"), at.get("dataloader-tuned")
        if slow and fast:
            lines.append(t["speedup"].format(slow=slow, fast=fast, ratio=_seconds(slow) / _seconds(fast)))
        if slow and tuned:
            ratio = max(_seconds(slow), _seconds(tuned)) / min(_seconds(slow), _seconds(tuned))
            verdict = t["tuned_faster" if _seconds(tuned) <= _seconds(slow) else "tuned_slower"].format(ratio=ratio)
            lines.append(t["tuned"].format(slow=slow, tuned=tuned, verdict=verdict))
        if len(at) > 1:
            spread = max(r["test_accuracy"] for r in at.values()) - min(r["test_accuracy"] for r in at.values())
            values = t["list_sep"].join(f"`{p}` {r['test_accuracy']:.2f} %" for p, r in at.items())
            verdict = "agree" if spread <= TARGETS["tolerance"] + 1e-9 else "disagree"
            lines.append(t[verdict].format(device=rows[0]["device_name"], values=values, spread=spread, **TARGETS))
    return lines


def versus(devices: dict[tuple, list[dict]], t: dict) -> list[str]:
    """Per batch size, the fastest pipeline of each GPU against that of each CPU; then, per GPU, the time per
    step of its highest rung measured at two batch sizes or more."""
    lines = []
    for batch in sorted({r["batch_size"] for rows in devices.values() for r in rows}):
        at = {
            k: min((r for r in rows if r["batch_size"] == batch), key=_seconds, default=None)
            for k, rows in devices.items()
        }
        cpus = [k for k, r in at.items() if r and k[0] == "cpu"]
        gpus = [k for k, r in at.items() if r and k[0] != "cpu"]
        if not cpus or not gpus:
            lines.append(t["one_side"].format(batch=batch, have=t["list_sep"].join(k[1] for k in cpus + gpus)))
        for g, c in product((at[k] for k in gpus), (at[k] for k in cpus)):
            lines.append(t["gpu_vs_cpu"].format(g=g, c=c, verdict=_compare(t, _seconds(g), _seconds(c))))
    for key, rows in devices.items():
        by_rung = [
            [r for r in rows if r["pipeline"] == p] for p in reversed(LADDER)
        ]  # the least besides the step first
        runs = next((runs for runs in by_rung if len(runs) > 1), [])
        if key[0] != "cpu" and runs:
            ms = [r["ms_per_step"] for r in runs]
            items = t["list_sep"].join(
                t["per_step_item"].format(ms=r["ms_per_step"], batch=r["batch_size"]) for r in runs
            )
            span = t["per_step_span"].format(lo=min(ms), hi=max(ms), first=runs[0], last=runs[-1])
            lines.append(t["per_step"].format(device=key[1], pipeline=runs[0]["pipeline"], steps_list=items, span=span))
    return lines


def loader_split(devices: dict[tuple, list[dict]], t: dict) -> list[str]:
    """The plain DataLoader per step on each GPU host against each CPU, and its --probe-loader split."""
    plain = {k: {r["batch_size"]: r for r in rows if r["pipeline"] == "dataloader"} for k, rows in devices.items()}
    lines = []
    for gk, ck in product([k for k in devices if k[0] != "cpu"], [k for k in devices if k[0] == "cpu"]):
        for g, c in ((plain[gk][b], plain[ck][b]) for b in sorted(plain[gk].keys() & plain[ck].keys())):
            lines.append(t["loader_compare"].format(g=g, c=c, verdict=_compare(t, g["ms_per_step"], c["ms_per_step"])))
    for runs in filter(None, plain.values()):
        r = next((r for r in runs.values() if "loader_probe" in r), None)  # the smallest batch probed
        if r is None:
            lines.append(t["probe_missing"].format(device=_device(next(iter(runs.values())), t)))
            continue
        p = r["loader_probe"]
        copied = t["probe_copy"].format(**p) if None not in (p["copy_us_pageable"], p["copy_us_pinned"]) else ""
        lines.append(t["probe"].format(**p, device=_device(r, t), batch=r["batch_size"], date=r["date"][:10]) + copied)
    return lines


def targets(devices: dict[tuple, list[dict]], t: dict) -> list[str]:
    """The ladder's targets for every device with a dataloader run at batch 64: on a GPU its fastest pipeline
    at batch 64, on a CPU its best rung at any batch size."""
    lines = []
    for key, rows in devices.items():
        base = next((r for r in rows if r["pipeline"] == "dataloader" and r["batch_size"] == 64), None)
        if base is None:
            continue
        gpu = key[0] != "cpu"
        best = min((r for r in rows if r["batch_size"] == 64 or not gpu), key=_seconds)
        speedup, spread = _seconds(base) / _seconds(best), abs(best["test_accuracy"] - base["test_accuracy"])
        want_speedup, want_seconds = (
            (TARGETS["gpu_speedup"], TARGETS["gpu_seconds"]) if gpu else (TARGETS["cpu_speedup"], math.inf)
        )
        met = speedup >= want_speedup and _seconds(best) <= want_seconds and spread <= TARGETS["tolerance"] + 1e-9
        text = t["gpu_target" if gpu else "cpu_target"]
        lines.append(
            text.format(best=best, speedup=speedup, spread=spread, verdict=t["met" if met else "not_met"], **TARGETS)
        )
    return lines


def missing(devices: dict[tuple, list[dict]], t: dict) -> list[str]:
    """Every rung and batch size of the ladder without a record, per device that has any."""
    lines = []
    for key, rows in devices.items():
        have = {(r["pipeline"], r["batch_size"]) for r in rows}
        runnable = [p for p in LADDER if key[0] == "cuda" or p not in CUDA_ONLY]
        absent = {p: "/".join(str(b) for b in BATCH_SIZES if (p, b) not in have) for p in runnable}
        items = [t["missing_item"].format(pipeline=p, batches=batches) for p, batches in absent.items() if batches]
        if items:
            lines.append(t["missing"].format(device=_device(rows[0], t), items=t["list_sep"].join(items)))
    return lines


def chart_series(devices: dict[tuple, list[dict]]) -> dict[tuple, list[tuple[int, float]]]:
    """The chart's lines: (device, pipeline) -> [(batch size, s/epoch), ...] in batch order."""
    return {
        (key, p): [(r["batch_size"], _seconds(r)) for r in rows if r["pipeline"] == p]
        for key, rows in devices.items()
        for p in LADDER
        if any(r["pipeline"] == p for r in rows)
    }


def crossover(devices: dict[tuple, list[dict]]) -> tuple[float, float] | None:
    """Where the fastest GPU pipeline becomes faster than the fastest CPU one: (batch size, s/epoch) at which the
    line through the best GPU times first drops below the line through the best CPU times, both interpolated as
    straight lines on the chart's log-log axes between the batch sizes measured on both; None where the GPU never
    goes from slower to faster (faster or slower at every batch size, or no record on one side)."""
    best: dict[bool, dict[int, float]] = {True: {}, False: {}}  # is a CPU -> batch size -> best s/epoch
    for key, rows in devices.items():
        for r in rows:
            side = best[key[0] == "cpu"]
            side[r["batch_size"]] = min(side.get(r["batch_size"], math.inf), _seconds(r))
    batches = sorted(best[True].keys() & best[False].keys())
    logs = [(math.log(b), math.log(best[False][b]), math.log(best[True][b])) for b in batches]  # batch, GPU, CPU
    for (b0, g0, c0), (b1, g1, c1) in pairwise(logs):
        if g0 > c0 and g1 <= c1:  # slower at b0, not slower at b1: the lines cross at the fraction f of the way
            f = (g0 - c0) / ((g0 - c0) - (g1 - c1))
            return math.exp(b0 + f * (b1 - b0)), math.exp(c0 + f * (c1 - c0))
    return None


def crossover_words(batch: float, t: dict) -> str:
    """The crossover's label, its batch size to two significant digits (it is an interpolation)."""
    return t["chart_crossover"].format(batch=f"{round(batch, 1 - math.floor(math.log10(batch))):g}")


def chart_style():
    """docs/data/benchmark_chart.mplstyle in effect, for drawing and saving the chart."""
    import matplotlib.style  # here, not at the top: a build without records does not pay for it

    return matplotlib.style.context(DATA / "benchmark_chart.mplstyle")


def _seconds_ticks(low: float, high: float) -> list[float]:
    """The y axis' ticks between low and high: the powers of ten, or 1-2-5 steps where fewer than two fit."""
    exponents = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    for steps in ((1,), (1, 2, 5), (1, 1.5, 2, 3, 5, 7)):
        ticks = [float(f"{m * 10.0**k:.3g}") for k in exponents for m in steps if low <= m * 10.0**k <= high]
        if len(ticks) >= 2:
            return ticks
    return ticks


def _clear_of(text, lines, axes) -> bool:
    """Whether the drawn text lies inside the axes and clear of every plotted line (in display units)."""
    box, inside = text.get_window_extent().padded(4), axes.get_window_extent()
    if box.x0 < inside.x0 or box.y0 < inside.y0 or box.x1 > inside.x1 or box.y1 > inside.y1:
        return False
    for line in lines:
        xy = line.get_transform().transform(line.get_xydata())
        for (x0, y0), (x1, y1) in pairwise(xy):
            if any(box.contains(x0 + (x1 - x0) * i / 40, y0 + (y1 - y0) * i / 40) for i in range(41)):
                return False
    return True


def _ensure_fonts(families: list[str]) -> list[str]:
    """The style's font families that are installed, matplotlib's font list refreshed once if one is missing
    (a font installed after matplotlib cached its list, as fonts-noto-cjk often is)."""
    from matplotlib import font_manager

    def known() -> set[str]:
        return {f.name for f in font_manager.fontManager.ttflist}

    if not set(families) <= known():
        listed = {f.fname for f in font_manager.fontManager.ttflist}
        for path in font_manager.findSystemFonts():
            if path not in listed:
                with contextlib.suppress(OSError, RuntimeError, ValueError):  # a file FreeType cannot read
                    font_manager.fontManager.addfont(path)
    return [f for f in families if f in known()]


def chart_figure(devices: dict[tuple, list[dict]], t: dict):
    """The chart as a matplotlib Figure, drawn within chart_style() (chart_svg's): seconds per
    epoch against batch size, both logarithmic; one colour per rung, solid lines for CPUs and dashed for GPUs,
    one marker per device; the y axis in plain seconds, the CPU/GPU crossover marked and labelled, the legend
    below the axes. Every word is t's (docs/data/text/<lang>/benchmarks.yml)."""
    import matplotlib
    from matplotlib.figure import Figure  # a bare Figure needs no GUI backend
    from matplotlib.lines import Line2D

    matplotlib.rcParams["font.family"] = _ensure_fonts(matplotlib.rcParams["font.family"]) or ["sans-serif"]
    figure = Figure()
    ax = figure.add_subplot(xscale="log", yscale="log")
    ax.set_title(t["chart_title"], loc="left", pad=12)
    ax.set_xlabel(t["chart_xlabel"])
    markers = {key: "os^Dv<>p"[i % 8] for i, key in enumerate(devices)}
    lines = []
    for (key, pipeline), points in chart_series(devices).items():
        style = "-" if key[0] == "cpu" else "--"
        color = f"C{LADDER.index(pipeline)}"
        lines += ax.plot(*zip(*points, strict=True), style, marker=markers[key], color=color)
    batches = sorted({r["batch_size"] for rows in devices.values() for r in rows})
    ax.set_xticks(batches, [str(b) for b in batches], minor=False)
    low, high = ax.get_ylim()
    ticks = _seconds_ticks(low, high)
    ax.set_yticks(ticks, [t["chart_seconds"].format(seconds=s) for s in ticks], minor=False)
    ax.minorticks_off()
    ax.set_ylim(low, high)
    ax.grid(axis="y")
    ink = matplotlib.rcParams["text.color"]
    if cross := crossover(devices):
        x, y = cross
        ax.plot([x, x], [low, y], ":", color=ink, linewidth=2, gid="crossover-line")
        ax.plot(
            [x], [y], "o", color=ink, markersize=9, markerfacecolor="none", markeredgewidth=2, gid="crossover-point"
        )
        label = ax.text(0, 0, crossover_words(x, t), gid="crossover-label")
        # beside the dotted line, at the bottom or the top of the axes: the first place no line runs through
        places = [(side, height) for height in (0.03, 0.97) for side in (-1, 1)]
        for side, height in [*places, places[0]]:
            label.set(
                x=x * (0.93 if side < 0 else 1.07),
                y=height,
                ha="right" if side < 0 else "left",
                va="bottom" if height < 0.5 else "top",
                transform=ax.get_xaxis_transform(),
            )
            if _clear_of(label, lines, ax):
                break
    handles = [
        Line2D([], [], color=f"C{LADDER.index(p)}", label=t["chart_pipelines"][p])
        for p in LADDER
        if any(r["pipeline"] == p for rows in devices.values() for r in rows)
    ]
    handles += [
        Line2D(
            [],
            [],
            color=ink,
            linestyle="-" if key[0] == "cpu" else "--",
            marker=markers[key],
            label=t["chart_cpu" if key[0] == "cpu" else "chart_gpu"].format(device_name=key[1]),
        )
        for key in devices
    ]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(-0.2, -0.12), borderaxespad=0)
    return figure


def chart_svg(devices: dict[tuple, list[dict]], t: dict) -> str:
    """chart_figure as an inline <svg>, styled by docs/data/benchmark_chart.mplstyle: its text as paths (no font
    to serve, sharp at any zoom), its ink the page's text colour (currentColor), its background transparent."""
    import warnings

    import matplotlib
    from mkdocs.exceptions import PluginError

    with chart_style(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ink = matplotlib.rcParams["text.color"]
        buffer = io.StringIO()
        chart_figure(devices, t).savefig(
            buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight", pad_inches=0.05
        )
    if missing := [str(w.message) for w in caught if "missing from font" in str(w.message)]:
        raise PluginError(
            f"docs/data/benchmark_chart.mplstyle: no installed font of its font.family draws the chart's words: "
            f"{missing[0]} (Debian: apt-get install fonts-noto-cjk)"
        )
    # the <svg> element alone: no declaration, metadata or comments, and no <style>, whose `*` rule would
    # restyle the whole page; natural size where there is room, shrunk to the column where there is not
    svg = re.sub(r"<metadata>.*?</metadata>|<!--.*?-->|<style.*?</style>", "", buffer.getvalue(), flags=re.S)
    svg = svg[svg.index("<svg") :].replace(ink, "currentColor")
    label = t["chart_label"]
    if cross := crossover(devices):
        label += t["list_sep"] + " ".join(crossover_words(cross[0], t).split())
    sizing = 'style="max-width: 100%; height: auto"'
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(label)}" {sizing} ', 1)
    return "\n".join(line for line in svg.splitlines() if line.strip())  # a blank line would end the HTML block


def _bullets(title: str, lines: list[str]) -> list[str]:
    return [f"**{title}**", "\n".join(f"- {line}" for line in lines)] if lines else []


def _box(title: str, lines: list[str]) -> list[str]:
    return [f'!!! info "{title}"\n' + "\n\n".join(f"    {line}" for line in lines)] if lines else []


def render(records: list[dict], t: dict) -> str:
    """The page's measured-timings section, in the language of the words t."""
    if not records:
        return "\n\n".join([t["none"], *_box(t["no_gpu_title"], [t["no_gpu"]])])
    devices, older = latest(records)
    first = next(iter(devices.values()))[0]
    parts = []
    for rows in devices.values():
        parts += [f"**{_device(rows[0], t)}**", table(rows, t), "\n".join(f"- {line}" for line in findings(rows, t))]
    parts += [t["dirty"]] if any(r["commit_dirty"] for rows in devices.values() for r in rows) else []
    images = f"{first['train_images']:,}".replace(",", " ")
    parts += [t["method"].format(epochs=first["epochs"], warmup=first["warmup_epochs"], images=images)]
    parts += [t["older"].format(n=older)] if older else []
    kinds = {key[0] == "cpu" for key in devices}
    parts += _bullets(t["versus_title"], versus(devices, t) if len(kinds) == 2 else [])
    parts += _bullets(t["loader_title"], loader_split(devices, t)) + _bullets(t["targets_title"], targets(devices, t))
    caption = f"<figcaption>{html.escape(t['caption'])}</figcaption>"
    parts += [f'<figure class="benchmark-chart">\n{chart_svg(devices, t)}\n{caption}\n</figure>']
    parts += _box(t["missing_title"], missing(devices, t))
    parts += _box(t["no_gpu_title"], [t["no_gpu"]] if kinds == {True} else [])
    return "\n\n".join(part for part in parts if part)


_records: list[dict] = []
_words: dict[str, dict] = {}


def on_pre_build(config) -> None:
    global _records
    repo = Path(config["config_file_path"]).parent
    _records = load_records(repo / "docs/data/benchmarks", repo / "docs/data/benchmark.schema.json", repo)
    _words.update(load_text("benchmarks", repo))


def on_page_markdown(markdown: str, page, config, files) -> str:
    if PLACEHOLDER not in markdown:
        return markdown
    return markdown.replace(PLACEHOLDER, render(_records, _words[language_of(page.file.src_uri)]))
