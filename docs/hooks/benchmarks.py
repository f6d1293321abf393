"""The MNIST page's measured timings, computed at build time from the records bench.py writes.

Every docs/data/benchmarks/*.json is checked against docs/data/benchmark.schema.json, whose `pipeline` enum
is the ladder (train.PIPELINES' order); a bad record stops the build naming the file and the field.
This module computes the tables' facts (the fastest pipeline per side and batch size and the GPU against the same
pipeline on the CPU, each record's distance from its floor, the records measured on a busy machine (`contended`,
marked ‡ wherever they are shown), what is not measured yet) and draws the chart, the floors included; the templates
docs/overrides/benchmarks/{summary,records}.md lay it out, with the words of docs/data/text/<lang>/benchmarks.yml.
`<!-- benchmark-summary -->` (under the page's findings) becomes the chart and a summary table; `<!-- benchmarks -->`
the folded records. The findings themselves are the page's prose, written by hand: tests/mnist/test_results_hook.py
checks that each number they quote is a record's. The ladder's targets are bench.py's to report, not the page's.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import math
import re
from itertools import groupby, product
from operator import itemgetter
from pathlib import Path

from site_pages import language_of, load_records, load_text, templates

PLACEHOLDERS = {"<!-- benchmark-summary -->": "summary", "<!-- benchmarks -->": "records"}
DATA = Path(__file__).resolve().parents[1] / "data"
SCHEMA = json.loads((DATA / "benchmark.schema.json").read_text(encoding="utf-8"))
LADDER = tuple(SCHEMA["properties"]["pipeline"]["enum"])
CUDA_ONLY = tuple(SCHEMA["$defs"]["cuda_only_pipelines"]["enum"])
BATCH_SIZES = (64, 256, 1024)  # what `make gpu-job` runs: a device's missing points are counted against these
_seconds = itemgetter("median_seconds_per_epoch")
_device_key = itemgetter("device_kind", "device_name", "cpu_cores", "torch_threads")  # one table per device


def with_steps(r: dict) -> dict:
    """The record with its optimizer steps per epoch (every batch is one, the last maybe smaller), ms per step, and
    its median's distance from its floor (`above_floor`, None for a record without a floor: schema version 1);
    `contended` False where the record predates the gauge."""
    steps = math.ceil(r["train_images"] / r["batch_size"])
    floor = r.get("floor", {}).get("seconds")
    return {**r, "steps": steps, "ms_per_step": 1000 * r["median_seconds_per_epoch"] / steps,
            "above_floor": r["median_seconds_per_epoch"] / floor if floor else None,
            "contended": r.get("contended", False)}


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


def by_batch(devices: dict[tuple, list[dict]]) -> list[dict]:
    """Per batch size, the fastest record on any CPU and on any GPU (None where that side has none) and, like with
    like, the GPU's fastest pipeline against the same pipeline on the CPU ("same", None where no CPU ran it):
    {"batch", "cpu", "gpu", "same", "gpu_faster", "ratio"} (ratio ≥ 1). The fastest of each side may be different
    pipelines (the CPU's hand-written step, a rung the GPU has not run): their times are shown, never compared."""
    rows = []
    for batch in sorted({r["batch_size"] for rows in devices.values() for r in rows}):
        best: dict[bool, dict | None] = {True: None, False: None}  # is a CPU -> fastest record
        for key, records in devices.items():
            for r in (r for r in records if r["batch_size"] == batch):
                side = key[0] == "cpu"
                if best[side] is None or _seconds(r) < _seconds(best[side]):
                    best[side] = r
        cpu, gpu = best[True], best[False]
        cpus = [r for key, rows in devices.items() if key[0] == "cpu" for r in rows if r["batch_size"] == batch]
        same = gpu and min((r for r in cpus if r["pipeline"] == gpu["pipeline"]), key=_seconds, default=None)
        row = {"batch": batch, "cpu": cpu, "gpu": gpu, "same": same, "gpu_faster": None, "ratio": None}
        if same:
            row["gpu_faster"] = _seconds(gpu) < _seconds(same)
            row["ratio"] = max(_seconds(gpu), _seconds(same)) / min(_seconds(gpu), _seconds(same))
        rows.append(row)
    return rows


def loader_steps(devices: dict[tuple, list[dict]]) -> list[dict]:
    """The plain DataLoader's time per step on each GPU host against each CPU, per batch size both ran:
    {"gpu", "cpu", "slower", "ratio"}."""
    plain = {k: {r["batch_size"]: r for r in rows if r["pipeline"] == "dataloader"} for k, rows in devices.items()}
    rows = []
    for gk, ck in product([k for k in devices if k[0] != "cpu"], [k for k in devices if k[0] == "cpu"]):
        for batch in sorted(plain[gk].keys() & plain[ck].keys()):
            g, c = plain[gk][batch]["ms_per_step"], plain[ck][batch]["ms_per_step"]
            rows.append({"gpu": plain[gk][batch], "cpu": plain[ck][batch], "slower": g > c,
                         "ratio": max(g, c) / min(g, c)})
    return rows


def loader_probes(devices: dict[tuple, list[dict]]) -> list[dict]:
    """Per device with a plain DataLoader run, its `--probe-loader` split at the smallest batch probed:
    {"record", "probe"}, probe None where none was."""
    probes = []
    for rows in devices.values():
        plain = [r for r in rows if r["pipeline"] == "dataloader"]
        if plain:
            r = next((r for r in plain if "loader_probe" in r), plain[0])
            probes.append({"record": r, "probe": r.get("loader_probe")})
    return probes


def missing(devices: dict[tuple, list[dict]]) -> list[dict]:
    """Per device that has any record, every rung it can run and the batch sizes of BATCH_SIZES without a record:
    {"record", "absent": [(pipeline, [batch, ...]), ...]}."""
    out = []
    for key, rows in devices.items():
        have = {(r["pipeline"], r["batch_size"]) for r in rows}
        runnable = [p for p in LADDER if key[0] == "cuda" or p not in CUDA_ONLY]
        absent = [(p, [b for b in BATCH_SIZES if (p, b) not in have]) for p in runnable]
        if absent := [(p, batches) for p, batches in absent if batches]:
            out.append({"record": rows[0], "absent": absent})
    return out


def floor_series(devices: dict[tuple, list[dict]]) -> dict[tuple, list[tuple[int, float]]]:
    """The chart's floors: device -> [(batch size, floor s/epoch), ...] from the records that carry one."""
    series = {}
    for key, rows in devices.items():
        floors = {r["batch_size"]: r["floor"]["seconds"] for r in rows if "floor" in r}
        if floors:
            series[key] = sorted(floors.items())
    return series


def chart_series(devices: dict[tuple, list[dict]]) -> dict[tuple, list[tuple[int, float]]]:
    """The chart's lines: (device, pipeline) -> [(batch size, s/epoch), ...] in batch order."""
    return {
        (key, p): [(r["batch_size"], _seconds(r)) for r in rows if r["pipeline"] == p]
        for key, rows in devices.items()
        for p in LADDER
        if any(r["pipeline"] == p for r in rows)
    }


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
    one marker per device; the y axis in plain seconds, the legend below the axes. Every word is t's
    (docs/data/text/<lang>/benchmarks.yml)."""
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
    floors = floor_series(devices)
    for key, points in floors.items():  # the least time an epoch can take there: grey, dotted, the device's marker
        lines += ax.plot(*zip(*points, strict=True), "-.", marker=markers[key], color="0.55", gid="floor-line")
    batches = sorted({r["batch_size"] for rows in devices.values() for r in rows})
    ax.set_xticks(batches, [str(b) for b in batches], minor=False)
    low, high = ax.get_ylim()
    ticks = _seconds_ticks(low, high)
    ax.set_yticks(ticks, [t["chart_seconds"].format(seconds=s) for s in ticks], minor=False)
    ax.minorticks_off()
    ax.set_ylim(low, high)
    ax.grid(axis="y")
    ink = matplotlib.rcParams["text.color"]
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
    handles += [
        Line2D([], [], color="0.55", linestyle="-.", marker=markers[key],
               label=t["chart_floor"].format(device_name=key[1]))
        for key in floors
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
    sizing = 'style="max-width: 100%; height: auto"'
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(label)}" {sizing} ', 1)
    return "\n".join(line for line in svg.splitlines() if line.strip())  # a blank line would end the HTML block


def facts(records: list[dict]) -> dict:
    """Everything the MNIST page says about the records, computed: the templates
    (docs/overrides/benchmarks/*.md) lay it out in the page's words."""
    devices, older = latest(records)
    rows = [r for rows in devices.values() for r in rows]
    return {
        "devices": devices,
        "older": older,
        "dirty": any(r["commit_dirty"] for r in rows),
        "first": rows[0] if rows else None,
        # per device, each count of timed and warm-up epochs its rows were measured with (the records note says them)
        "epochs": {key: sorted({(r["epochs"], r["warmup_epochs"]) for r in rows}) for key, rows in devices.items()},
        "by_batch": by_batch(devices),
        "loader_steps": loader_steps(devices),
        "probes": loader_probes(devices),
        "missing": missing(devices),
        "contended": [r for r in rows if r["contended"]],
        "floors": [r for r in rows if r["above_floor"] is not None],
        # a cell of the summary table shows its distance from the floor
        "summary_floors": any(
            r["above_floor"] is not None for row in by_batch(devices) for r in (row["cpu"], row["gpu"]) if r
        ),
    }


def _chart(devices: dict[tuple, list[dict]], t: dict) -> str:
    return chart_svg(devices, t) if devices else ""


def render(records: list[dict], t: dict, lang: str, part: str) -> str:
    """One part of the page ("summary": what we found, the chart and the summary table; "records": the folded
    record tables, the DataLoader's split and what is not measured yet) in lang, with the words t."""
    data = facts(records)
    return templates().get_template(f"benchmarks/{part}.md").render(
        t=t, lang=lang, chart=lambda: _chart(data["devices"], t), **data
    ).strip("\n")


_records: list[dict] = []
_words: dict[str, dict] = {}


def on_pre_build(config) -> None:
    global _records
    repo = Path(config["config_file_path"]).parent
    _records = load_records(repo / "docs/data/benchmarks", repo / "docs/data/benchmark.schema.json", repo)
    _words.update(load_text("benchmarks", repo))


def on_page_markdown(markdown: str, page, config, files) -> str:
    lang = language_of(page.file.src_uri)
    for placeholder, part in PLACEHOLDERS.items():
        if placeholder in markdown:
            markdown = markdown.replace(placeholder, render(_records, _words[lang], lang, part))
    return markdown
