"""docs/hooks/benchmarks.py: the records and words it checks, what it renders, and the built MNIST page."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import string
from collections import Counter
from operator import itemgetter

import jsonschema
import pytest
import train
from mkdocs.exceptions import PluginError

import benchmarks  # docs/hooks/benchmarks.py
from site_pages import DOCS, FENCE, REPO, expand_includes, load_text

SCHEMA = benchmarks.SCHEMA
RECORDS = sorted((DOCS / "data" / "benchmarks").glob("*.json"))
H100_RUN = REPO.parent / "shared" / "gpu-runs" / "2026-11-22-h100"
H100_RECORDS = sorted((DOCS / "data" / "benchmarks").glob("2026-11-22_cuda_nvidia-h100-80gb-hbm3_*.json"))

WORDS = load_text("benchmarks")


def _record(**changes) -> dict:
    """A valid CPU record of the resident pipeline at batch size 64, with changes."""
    return {
        "schema_version": 1, "date": "2026-05-10T12:03:01Z", "device_kind": "cpu", "device_name": "Some CPU",
        "cpu_cores": 2, "torch_threads": 2, "load_average": 0.5, "torch_version": "2.14.1+cu130",
        "torch_cuda_version": "13.0", "torchvision_version": "0.29.1+cu130", "python_version": "3.11.7",
        "commit": "0123456789abcdef0123456789abcdef01234567", "commit_dirty": False, "pipeline": "resident",
        "batch_size": 64, "epochs": 3, "warmup_epochs": 1, "num_workers": 0, "seed": 0, "train_images": 60000,
        "warmup_seconds": [0.5], "seconds_per_epoch": [0.3, 0.31, 0.32], "median_seconds_per_epoch": 0.31,
        "setup_seconds": 0.2, "images_per_second": 193548.4, "final_loss": 0.41, "test_accuracy": 90.5,
        **changes,
    }


def _gpu(**changes) -> dict:
    return _record(device_kind="cuda", device_name="Some GPU", cpu_cores=16, torch_threads=16, **changes)


# ---- one home for the ladder ------------------------------------------------------------------------------


def test_the_ladder_is_train_pys_in_the_schema_and_the_hook():
    assert SCHEMA["properties"]["pipeline"]["enum"] == list(train.PIPELINES)
    assert SCHEMA["$defs"]["cuda_only_pipelines"]["enum"] == list(train.CUDA_ONLY)
    assert (benchmarks.LADDER, benchmarks.CUDA_ONLY) == (train.PIPELINES, train.CUDA_ONLY)
    assert benchmarks.BATCH_SIZES == (64, 256, 1024)
    style = (DOCS / "data" / "benchmark_chart.mplstyle").read_text(encoding="utf-8")
    colours = re.search(r"^axes\.prop_cycle: cycler\('color', \[(.*)\]\)$", style, re.M)[1].split(",")
    assert len(colours) >= len(benchmarks.LADDER)  # a colour of its own for every rung
    assert _gpu_job().BATCH_SIZES == benchmarks.BATCH_SIZES  # what `make gpu-job` measures


def _gpu_job():
    """tools/gpu_job.py, the GPU job behind `make gpu-job` (a script, not on the tests' path)."""
    spec = importlib.util.spec_from_file_location("gpu_job", REPO / "tools" / "gpu_job.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- records: the schema and the loader -------------------------------------------------------------------


BROKEN = {
    "missing-date": (lambda r: r.pop("date"), "date"),
    "accuracy-as-text": (lambda r: r.update(test_accuracy="90.5"), "test_accuracy"),
    "accuracy-over-100": (lambda r: r.update(test_accuracy=190.5), "test_accuracy"),
    "unknown-pipeline": (lambda r: r.update(pipeline="fast"), "pipeline"),
    "graph-rung-on-a-cpu": (lambda r: r.update(pipeline="resident-graph"), "pipeline"),
    "short-commit": (lambda r: r.update(commit="0123abc"), "commit"),
    "date-not-iso": (lambda r: r.update(date="10/05/2026"), "date"),
    "negative-epoch-time": (lambda r: r.update(seconds_per_epoch=[0.3, -1]), "seconds_per_epoch.1"),
    "extra-field": (lambda r: r.update(gpu="yes"), "gpu"),
}


def test_the_schema_accepts_a_valid_record():
    jsonschema.validate(_record(), SCHEMA)
    jsonschema.validate(_gpu(pipeline="resident-graph"), SCHEMA)


@pytest.mark.parametrize(("breakage", "field"), BROKEN.values(), ids=BROKEN.keys())
def test_the_schema_and_the_hook_reject_a_malformed_record(breakage, field, tmp_path):
    record = _record()
    breakage(record)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record, SCHEMA)
    (tmp_path / "broken.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(PluginError) as error:
        benchmarks.load_records(tmp_path, DOCS / "data" / "benchmark.schema.json")
    assert f"broken.json: field '{field}'" in str(error.value)


def test_the_hook_rejects_bad_json(tmp_path):
    (tmp_path / "cut.json").write_text('{"date": "2026-05-10T', encoding="utf-8")
    with pytest.raises(PluginError, match=r"cut\.json: not valid JSON"):
        benchmarks.load_records(tmp_path, DOCS / "data" / "benchmark.schema.json")


def test_the_build_step_names_a_malformed_records_file_and_field_in_one_line(tmp_path):
    """What `mkdocs build` calls first: on_pre_build, on a docs folder holding the schema and a broken record."""
    data = tmp_path / "docs" / "data"
    (data / "benchmarks").mkdir(parents=True)
    shutil.copy(DOCS / "data" / "benchmark.schema.json", data)
    record = _record()
    del record["test_accuracy"]
    (data / "benchmarks" / "2026-05-10_cpu_broken_resident_bs64.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(PluginError) as error:
        benchmarks.on_pre_build({"docs_dir": str(tmp_path / "docs"), "config_file_path": str(tmp_path / "mkdocs.yml")})
    assert str(error.value) == ("docs/data/benchmarks/2026-05-10_cpu_broken_resident_bs64.json: "
                                "field 'test_accuracy': 'test_accuracy' is a required property")


def test_committed_records_are_schema_valid():
    assert RECORDS, "no benchmark record committed in docs/data/benchmarks/"
    for file in RECORDS:
        jsonschema.validate(json.loads(file.read_text(encoding="utf-8")), SCHEMA)


def test_the_h100_records_are_committed_unchanged_and_schema_valid():
    assert len(H100_RECORDS) == 9
    records = [json.loads(file.read_text(encoding="utf-8")) for file in H100_RECORDS]
    for file, record in zip(H100_RECORDS, records, strict=True):
        jsonschema.validate(record, SCHEMA)
        assert record["commit"].startswith("b1e3b05") and record["torch_version"] == "2.11.0+cu130"
        assert record["commit_dirty"] is False
        if H100_RUN.is_dir():  # the run's own folder, where it is at hand: byte for byte the same
            assert file.read_bytes() == (H100_RUN / file.name).read_bytes()
    assert sorted((r["pipeline"], r["batch_size"]) for r in records) == sorted(
        (p, b) for p in ("dataloader", "dataloader-tuned", "resident") for b in (64, 256, 1024))


# ---- words: docs/data/text/<lang>/benchmarks.yml ----------------------------------------------------------


def _placeholders(value) -> set[str]:
    if isinstance(value, dict):  # the chart's pipeline names: one mapping per language
        return {f"{key}:{name}" for key, words in value.items() for name in _placeholders(words)}
    return {name for _, name, _, _ in string.Formatter().parse(str(value)) if name}


def test_every_language_has_the_same_words_with_the_same_placeholders():
    en, zh = WORDS["en"], WORDS["zh"]
    assert en.keys() == zh.keys()
    assert {k: _placeholders(v) for k, v in en.items()} == {k: _placeholders(v) for k, v in zh.items()}
    assert len(en["headers"]) == len(zh["headers"]) == 8
    assert en["chart_pipelines"].keys() == zh["chart_pipelines"].keys() == set(benchmarks.LADDER)


# ---- rendering ---------------------------------------------------------------------------------------------


def _page(records: list[dict], lang: str = "en") -> str:
    """The MNIST page's opening and its folded records, as the build renders them."""
    return "\n\n".join(benchmarks.render(records, WORDS[lang], lang, part) for part in ("summary", "records"))


def test_render_without_records_says_so_in_one_line():
    text = _page([_record(pipeline="dataloader", median_seconds_per_epoch=10.0), _record()])
    assert "<svg" in text and "currentColor" in text
    assert "**No benchmark record has been published yet.**" not in _page([])
    assert benchmarks.render([], WORDS["en"], "en", "summary") == "No benchmark record has been published yet."
    assert benchmarks.render([], WORDS["en"], "en", "records") == ""


def test_render_summary_table_has_the_fastest_per_side_and_batch_size():
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=8.0),
               _record(pipeline="resident", median_seconds_per_epoch=0.34),
               _record(pipeline="resident", batch_size=1024, median_seconds_per_epoch=0.1),
               _gpu(pipeline="resident", median_seconds_per_epoch=0.8),
               _gpu(pipeline="dataloader-tuned", median_seconds_per_epoch=3.0),
               _gpu(pipeline="resident", batch_size=1024, median_seconds_per_epoch=0.05),
               _gpu(pipeline="resident", batch_size=256, median_seconds_per_epoch=0.25)]
    en = benchmarks.render(records, WORDS["en"], "en", "summary")
    kept = "data kept on the device"
    assert f"| 64 | 0.34 s · {kept} | 0.8 s · {kept} | 2.4× slower (the CPU: 0.34 s) |" in en
    assert f"| 256 | — | 0.25 s · {kept} | — |" in en
    assert f"| 1024 | 0.1 s · {kept} | 0.05 s · {kept} | **2.0× faster** (the CPU: 0.1 s) |" in en
    zh = benchmarks.render(records, WORDS["zh"], "zh", "summary")
    assert "| 64 | 0.34 秒 · 数据常驻设备 | 0.8 秒 · 数据常驻设备 | 用时是 CPU 的 2.4 倍（CPU：0.34 秒） |" in zh
    assert "**速度是 CPU 的 2.0 倍**" in zh
    # like with like: a faster CPU rung the GPU has not run is shown, but the GPU is set against its own pipeline
    manual = _record(pipeline="resident-manual", median_seconds_per_epoch=0.1)
    en = benchmarks.render([*records, manual], WORDS["en"], "en", "summary")
    assert f"| 64 | 0.1 s · kept on device + step by hand | 0.8 s · {kept} | 2.4× slower (the CPU: 0.34 s) |" in en
    tuned = [_record(pipeline="dataloader", median_seconds_per_epoch=8.0), _gpu(pipeline="dataloader-tuned")]
    assert "| 64 | 8 s · plain DataLoader | 0.31 s · tuned DataLoader | — |" in benchmarks.render(
        tuned, WORDS["en"], "en", "summary")  # the CPU has no tuned record: nothing to compare


def test_render_with_a_gpu_record_shows_it():
    gpu = _record(device_kind="cuda", device_name="NVIDIA H100 80GB HBM3")
    text = _page([_record(), gpu])
    assert "NVIDIA H100 80GB HBM3 (cuda; host: 2 CPU cores, 2 threads per op)" in text


def test_render_keeps_only_the_latest_record_per_configuration():
    old = _record(date="2026-01-01T00:00:00Z", median_seconds_per_epoch=9.99)
    text = _page([old, _record()])
    assert "9.99" not in text and "1 older record is kept" in text
    two = _page([old, _record(date="2026-02-01T00:00:00Z"), _record()])
    assert "2 older records are kept" in two


def test_render_counts_in_the_singular_for_one():
    """Words with a count say one thread, one epoch, one record (docs/data/text/en/benchmarks.yml's `_one` keys), and
    no "(s)"; Chinese has no plural, and its words say the same for every count."""
    one = _record(torch_threads=1, epochs=1, warmup_epochs=1)
    text = " ".join(benchmarks.render([one], WORDS["en"], "en", "records").split())
    assert "**Some CPU (CPU, 2 cores, 1 thread per op)**" in text
    assert "after its warm-up (Some CPU: 1 timed epoch after 1 warm-up epoch), on" in text
    several = " ".join(benchmarks.render([_record(warmup_epochs=2)], WORDS["en"], "en", "records").split())
    assert "**Some CPU (CPU, 2 cores, 2 threads per op)**" in several
    assert "(Some CPU: 3 timed epochs after 2 warm-up epochs)" in several
    assert "(s)" not in text + several
    zh = "".join(benchmarks.render([one], WORDS["zh"], "zh", "records").split())
    assert "每个运算1个线程" in zh and "再取计时各轮的中位数（SomeCPU1轮预热、1轮计时）" in zh, zh
    # each device's own counts: the note once said the first record's 5 for rows that had 3
    mixed = " ".join(benchmarks.render([_record(epochs=5), _gpu()], WORDS["en"], "en", "records").split())
    assert "(Some CPU: 5 timed epochs after 1 warm-up epoch; Some GPU: 3 timed epochs after 1 warm-up epoch)" in mixed


def test_render_has_one_table_per_device_folded_and_the_chart_lines():
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=3.6), _record(),
               _gpu(pipeline="dataloader", median_seconds_per_epoch=11.1),
               _gpu(pipeline="resident", batch_size=256, median_seconds_per_epoch=0.25)]
    folded = benchmarks.render(records, WORDS["en"], "en", "records")
    assert folded.startswith('??? info "Every record')
    assert all(line.startswith("    ") for line in folded.splitlines()[1:] if line)  # all of it inside the fold
    assert "**Some CPU (CPU, 2 cores, 2 threads per op)**" in folded
    assert "**Some GPU (cuda; host: 16 CPU cores, 16 threads per op)**" in folded
    assert folded.count("| Pipeline | Batch size |") == 2
    assert "<svg" in benchmarks.render(records, WORDS["en"], "en", "summary")
    devices, _ = benchmarks.latest(records)
    series = {(key[1], pipeline): points for (key, pipeline), points in benchmarks.chart_series(devices).items()}
    assert series == {("Some CPU", "dataloader"): [(64, 3.6)], ("Some CPU", "resident"): [(64, 0.31)],
                      ("Some GPU", "dataloader"): [(64, 11.1)], ("Some GPU", "resident"): [(256, 0.25)]}


def test_no_target_reaches_the_page():
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=3.6),
               _gpu(pipeline="dataloader", median_seconds_per_epoch=11.0), _gpu(median_seconds_per_epoch=0.9)]
    for lang in ("en", "zh"):
        text = _page(records, lang).lower()
        assert not re.search(r"ladder.s targets|target ≥|target ≤|not met|阶梯的目标|目标 ≥|未达到", text)


def test_render_names_the_rungs_not_measured_yet():
    records = [_record(pipeline="dataloader"), _gpu(pipeline="resident")]
    text = " ".join(_page(records).split())
    assert ("No record yet on **Some CPU (CPU, 2 cores, 2 threads per op)** for: `dataloader` at batch 256/1024, "
            "`dataloader-tuned` at batch 64/256/1024, `resident` at batch 64/256/1024, `resident-manual` at batch "
            "64/256/1024.") in text  # no graph on a CPU
    assert ("`resident` at batch 256/1024, `resident-manual` at batch 64/256/1024, `resident-graph` at batch "
            "64/256/1024.") in text
    assert "尚未测量" in _page(records, "zh")


def test_render_splits_the_loader_step_when_probed():
    probe = {"steps": 200, "threads": 16, "transform_us_per_image": 150.0, "transform_us_per_image_one_thread": 50.0,
             "make_batch_ms": 10.0, "copy_batch_ms": 0.5, "train_step_ms": 1.25, "copy_us_pageable": 80.0,
             "copy_us_pinned": 20.0}
    records = [_record(pipeline="dataloader", median_seconds_per_epoch=3.638),
               _gpu(pipeline="dataloader", median_seconds_per_epoch=11.1258)]
    text = _page(records)
    assert "| 64 | 11.861 ms (16 cores) | 3.878 ms (2 cores) | 3.1× slower |" in text
    assert "No `--probe-loader` record yet for **Some GPU (cuda;" in text
    records[1]["loader_probe"] = probe
    jsonschema.validate(records[1], SCHEMA)
    text = _page(records)
    assert ("per step 10.000 ms waiting for the batch, 0.500 ms copying it to the device, 1.250 ms training") in text
    assert "150.0 µs with 16 threads per op, 50.0 µs with one" in text
    assert "80.0 µs from ordinary (pageable) memory, 20.0 µs from pinned memory" in text
    assert "No `--probe-loader` record yet for **Some GPU" not in text
    assert "No `--probe-loader` record yet for **Some CPU" in text
    records[1]["median_seconds_per_epoch"] = 1.8193  # 1.940 ms per step: the GPU host now makes batches faster
    assert "| 64 | 1.940 ms (16 cores) | 3.878 ms (2 cores) | 2.0× faster |" in _page(records)
    assert "| 64 | 1.940 毫秒（16 核） | 3.878 毫秒（2 核） | 速度是 CPU 的 2.0 倍 |" in _page(records, "zh")


# ---- the chart: a phone's width, plain seconds, the page's language ---------------------------------------

PHONE_COLUMN_PX = 358  # a 390 px phone's text column: Material pads the content by 16 px each side
BODY_PX = 16  # Material's body text there (.md-typeset: 0.8rem of a 20 px root), measured in Chromium
SLATE_BG = "#1e2129"  # Material's dark (slate) page background, measured in Chromium


def _committed() -> dict[tuple, list[dict]]:
    """The H100 run's records and the CPU run of 2026-11-23 (nine each), as the chart draws them: real records
    that stay as committed, so the hand-checked figures below hold when newer runs are added."""
    files = [*H100_RECORDS, *sorted((DOCS / "data" / "benchmarks").glob("2026-11-23_cpu_amd-epyc_*.json"))]
    assert len(files) == 18
    return benchmarks.latest([json.loads(f.read_text(encoding="utf-8")) for f in files])[0]


def _chart_texts(devices: dict, lang: str) -> dict[str, list[str]]:
    """The chart's words, drawn from the records in lang: every visible, non-empty text of the figure by role."""
    with benchmarks.chart_style():
        figure = benchmarks.chart_figure(devices, WORDS[lang])
        figure.draw_without_rendering()
        ax = figure.axes[0]
        texts = {
            "title": [ax.get_title(loc="left")], "xlabel": [ax.get_xlabel()], "ylabel": [ax.get_ylabel()],
            "xticks": [tick.get_text() for tick in ax.get_xticklabels()],
            "yticks": [tick.get_text() for tick in ax.get_yticklabels()],
            "legend": [text.get_text() for text in ax.get_legend().get_texts()],
        }
        drawn = {text.get_text() for text in figure.findobj(lambda a: hasattr(a, "get_text") and a.get_visible())}
    assert drawn - {""} == {text for words in texts.values() for text in words} - {""}  # nothing else is written
    return {role: [text for text in words if text] for role, words in texts.items()}


def _luminance(colour: str) -> float:
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_y_axis_reads_in_plain_seconds():
    devices = _committed()  # 0.0498 to 11.1 s
    assert _chart_texts(devices, "en")["yticks"] == ["0.1 s", "1 s", "10 s"]
    assert _chart_texts(devices, "zh")["yticks"] == ["0.1 秒", "1 秒", "10 秒"]
    # less than a decade (0.3 to 0.8 s): no power of ten inside, nor two of 1-2-5; at least two ticks still
    narrow = benchmarks.latest([_record(median_seconds_per_epoch=0.3), _gpu(median_seconds_per_epoch=0.8)])[0]
    assert _chart_texts(narrow, "en")["yticks"] == ["0.3 s", "0.5 s", "0.7 s"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_word_of_the_chart_is_in_the_pages_language(lang):
    devices, words = _committed(), WORDS[lang]
    texts = _chart_texts(devices, lang)
    assert texts["title"] == [words["chart_title"]] and texts["xlabel"] == [words["chart_xlabel"]]
    assert texts["ylabel"] == []  # the title above the axes says what the y axis is
    assert texts["xticks"] == ["64", "256", "1024"]
    rungs = [p for p in benchmarks.LADDER if any(r["pipeline"] == p for rows in devices.values() for r in rows)]
    floors = [key[1] for key, rows in devices.items() if any("floor" in r for r in rows)]
    assert texts["legend"] == [
        *(words["chart_pipelines"][p] for p in rungs),
        words["chart_cpu"].format(device_name="AMD EPYC"),
        words["chart_gpu"].format(device_name="NVIDIA H100 80GB HBM3"),
        *(words["chart_floor"].format(device_name=name) for name in floors),
    ]
    other = _chart_texts(devices, "zh" if lang == "en" else "en")
    ours = {text for role, words_ in texts.items() if role != "xticks" for text in words_}
    theirs = {text for role, words_ in other.items() if role != "xticks" for text in words_}
    assert not ours & theirs  # not one label, title, tick or legend entry in the other language
    if lang == "zh":
        device_labels = set(texts["legend"][len(rungs) : len(rungs) + 2])  # the devices' names, in Latin letters
        assert all(re.search(r"[\u4e00-\u9fff]", text) for text in ours - device_labels)
    # the glyphs are drawn (as paths) from a font that has them: Noto Sans CJK for the Chinese words
    fonts = set(re.findall(r'<path id="([A-Za-z][\w-]*?)-[0-9a-f]+"', benchmarks.chart_svg(devices, words)))
    assert fonts == ({"DejaVuSans", "NotoSansCJKsc-Regular"} if lang == "zh" else {"DejaVuSans"})


def test_the_chart_stops_the_build_without_a_font_for_its_words(monkeypatch):
    monkeypatch.setattr(benchmarks, "_ensure_fonts", lambda families: ["DejaVu Sans"])  # no CJK font installed
    devices = _committed()
    assert "<svg" in benchmarks.chart_svg(devices, WORDS["en"])
    with pytest.raises(PluginError, match=r"benchmark_chart\.mplstyle: no installed font .* fonts-noto-cjk"):
        benchmarks.chart_svg(devices, WORDS["zh"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_charts_text_is_body_size_on_a_phone_and_sharp(lang):
    svg = benchmarks.chart_svg(_committed(), WORDS[lang])
    assert "<text" not in svg and "<image" not in svg  # every glyph a path: sharp at any zoom, no font to load
    width = float(re.search(r'viewBox="0 0 ([\d.]+) [\d.]+"', svg)[1])
    sizes = [100 * float(s) for s in re.findall(r"scale\(([\d.]+) -[\d.]+\)", svg)]  # glyphs: 1/100 of the size
    assert len(sizes) >= 13  # title, axis label, 6 ticks, 5 legend entries
    assert min(sizes) * PHONE_COLUMN_PX / width >= BODY_PX  # shrunk to the phone's column, still body-sized
    assert 'style="max-width: 100%; height: auto"' in svg  # shrunk to the column where it is narrower


def _every_rung_with_floors() -> dict[tuple, list[dict]]:
    """Every rung on a CPU (with floors) and on a GPU: every colour the chart can draw."""
    cpu = [_v2(pipeline=p, median_seconds_per_epoch=0.1 * (i + 1)) for i, p in enumerate(benchmarks.LADDER)
           if p not in benchmarks.CUDA_ONLY]
    gpu = [_gpu(pipeline=p, median_seconds_per_epoch=0.2 * (i + 1)) for i, p in enumerate(benchmarks.LADDER)]
    return benchmarks.latest(cpu + gpu)[0]


@pytest.mark.parametrize("records", ["committed", "every rung"])
def test_the_chart_reads_in_both_schemes(records):
    devices = _committed() if records == "committed" else _every_rung_with_floors()
    svg = benchmarks.chart_svg(devices, WORDS["en"])
    # text, axes and marks in the page's text colour; no background of its own
    assert "currentColor" in svg and "#010203" not in svg
    assert not re.search(r"fill: ?#(?:fff|ffffff|000|000000)\b", svg, flags=re.I)
    colours = set(re.findall(r"stroke: (#[0-9a-f]{6})", svg))
    rungs = {r["pipeline"] for rows in devices.values() for r in rows}
    floors = any("floor" in r for rows in devices.values() for r in rows)
    assert len(colours) == len(rungs) + floors  # one per rung measured, and the floors' grey
    for colour in colours:  # each line at least 3:1 on the light and the dark page
        assert _contrast(colour, "#ffffff") >= 3 and _contrast(colour, SLATE_BG) >= 3, colour


# ---- the built page (one build, shared with the other site tests) ------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_built_page_shows_the_records_with_provenance(built_site, lang):
    html = (built_site / ("" if lang == "en" else "zh") / "mnist" / "index.html").read_text(encoding="utf-8")
    assert "<!-- benchmarks -->" not in html
    devices, _ = benchmarks.latest([json.loads(f.read_text(encoding="utf-8")) for f in RECORDS])
    shown = [r for rows in devices.values() for r in rows]
    for record in shown:
        for text in (f"{record['median_seconds_per_epoch']:.3f}", f"{record['ms_per_step']:.3f}",
                     f"{record['images_per_second']:,.0f}",
                     WORDS[lang]["accuracy_cell"].format(percent=record["test_accuracy"]), record["torch_version"],
                     record["date"][:10],
                     record["device_name"]):
            assert text in html, text
        if record["commit"]:
            assert f"<code>{record['commit'][:7]}</code>" in html
    assert 'class="benchmark-chart"' in html and "<svg" in html
    # what we found, above the records; the records folded; no target on the page
    assert html.index("admonition success") < html.index('class="benchmark-chart"') < html.index("<details")
    article = html.split("<article", 1)[1].split("</article>", 1)[0]
    assert not re.search(r"ladder.s targets|not met|阶梯的目标|未达到", article, re.I)
    # the H100's rows, and its time per step at batch 64, near the guide's 32 (938 steps of 64 images)
    assert "NVIDIA H100 80GB HBM3" in html
    h100 = [json.loads(f.read_text(encoding="utf-8")) for f in H100_RECORDS]
    at_64 = next(r for r in h100 if r["pipeline"] == "resident" and r["batch_size"] == 64)
    assert f"{benchmarks.with_steps(at_64)['ms_per_step']:.3f}" in html and "938" in html
    assert "resident-graph" in html  # named among the rungs not measured yet


# ---- schema version 2: the minimum, the gauge's contended flag and the floor (issue 39) -------------------


def _v2(contended=False, floor=0.025, **changes) -> dict:
    """A version 2 record: what bench.py writes since it reads the gauge and stores the floor."""
    gauge = {"before_seconds": 1.2 if contended else 0.39, "after_seconds": 0.4, "quiet_seconds": 0.38, "limit": 1.5}
    fields = {"schema_version": 2, "min_seconds_per_epoch": 0.29, "contended": contended, "gauge": gauge,
              "floor": {"flop": 1_890_000_000, "bytes": 188_640_000, "peak_flop_per_second": 1.0e11,
                        "peak_bytes_per_second": 8.0e9, "peak_source": "measured", "seconds": floor}}
    return _record(**(fields | changes))


def test_the_schema_takes_version_2_and_keeps_version_1():
    jsonschema.validate(_v2(), SCHEMA)
    jsonschema.validate(_record(), SCHEMA)  # written before: no gauge, no floor, still valid
    jsonschema.validate(_v2(pipeline="resident-manual"), SCHEMA)  # the hand-written step runs on a CPU too
    for field in ("min_seconds_per_epoch", "contended", "gauge", "floor"):
        record = _v2()
        record.pop(field)
        with pytest.raises(jsonschema.ValidationError, match=field):
            jsonschema.validate(record, SCHEMA)
        with pytest.raises(jsonschema.ValidationError):  # a version 1 record cannot carry it
            jsonschema.validate(_record(**{field: _v2()[field]}), SCHEMA)


def test_a_contended_record_never_reaches_the_page_unflagged():
    quiet = _v2(pipeline="dataloader", median_seconds_per_epoch=3.6)
    busy = _v2(contended=True)
    for lang in ("en", "zh"):
        text = _page([quiet, busy, _gpu()], lang)
        # its row in the records, its cell in the summary table, the note that says what ‡ means, the finding
        assert "| `resident` | 64 | 0.310 · 0.290 ‡ | 0.330 |" in text
        assert re.search(r"\| 64 \| 0\.31 (s|秒) · [^|]* ‡", text)
        assert WORDS[lang]["contended_note"].format(limit=1.5, quiet=0.38) in text
        assert WORDS[lang]["summary_contended"] in text
    # the same pipeline's time on the CPU, where the summary sets the GPU against it, is marked too
    assert "2.6× slower (the CPU: 0.31 s) ‡ |" in _page([busy, _gpu(median_seconds_per_epoch=0.8)])
    calm = _page([quiet, _v2()])
    assert "‡" not in calm and "busy" not in calm
    # a floor only on a slower rung: the table's cells have none, so the note that explains them is left out
    slow = _page([_record(), _v2(pipeline="dataloader", median_seconds_per_epoch=3.6)])
    assert "144×" in slow and WORDS["en"]["summary_floor_note"] not in slow


def test_every_rung_shows_its_distance_from_the_floor():
    records = [_v2(pipeline="dataloader", median_seconds_per_epoch=3.6), _v2(),
               _v2(pipeline="resident-manual", median_seconds_per_epoch=0.1, min_seconds_per_epoch=0.09),
               _gpu(median_seconds_per_epoch=0.8)]
    text = _page(records)
    # 3.6 / 0.025 = 144, 0.31 / 0.025 = 12.4, 0.1 / 0.025 = 4; the GPU record predates the floor: a dash
    assert "| `dataloader` | 64 | 3.600 · 0.290 | 3.838 | 193,548 | 144× |" in text
    assert "| `resident` | 64 | 0.310 · 0.290 | 0.330 | 193,548 | 12× |" in text
    assert "| `resident-manual` | 64 | 0.100 · 0.090 | 0.107 | 193,548 | 4.0× |" in text
    assert "| `resident` | 64 | 0.800 | 0.853 | 193,548 | — |" in text  # version 1: no minimum, no floor
    assert "| 64 | 0.1 s · kept on device + step by hand (4.0× the floor) | 0.8 s · data kept on the device |" in text
    assert WORDS["en"]["floor_note"] in text and WORDS["en"]["summary_floor_note"] in text
    zh = _page(records, "zh")
    assert "| 64 | 0.1 秒 · 常驻数据 + 手写训练步（下限的 4.0 倍） |" in zh
    assert "见[实测用时](#benchmarks)。“下限的几倍”" in zh  # no space between two Chinese sentences
    devices, _ = benchmarks.latest(records)
    assert benchmarks.floor_series(devices) == {("cpu", "Some CPU", 2, 2): [(64, 0.025)]}
    assert 'id="floor-line' in benchmarks.chart_svg(devices, WORDS["en"])


# ---- the findings: written by hand on the page, every number one of the records' ------------------------------

FINDINGS = {"en": '!!! success "What we found"', "zh": '!!! success "我们的发现"'}
# a date, a version or a number; not the 100 of "H100"
NUMBER = re.compile(r"\d{4}-\d{2}-\d{2}|(?<![\w.])\d+(?:\.\d+)*")


def _findings(lang: str) -> str:
    """The MNIST page's findings: the lines of its box."""
    lines = (DOCS / lang / "mnist.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(FINDINGS[lang]) + 1
    end = next(k for k in range(start + 1, len(lines)) if lines[k] and not lines[k].startswith("    "))
    return "\n".join(lines[start:end])


def _quoted() -> list[str]:
    """Every number the findings quote, computed from the committed records and rounded as the page's tables round
    them: seconds as the records (0.157) or the summary (0.0765) show them, ratios and floors to one decimal."""
    records = [json.loads(f.read_text(encoding="utf-8")) for f in RECORDS]
    devices, _ = benchmarks.latest(records)
    on = {side: [r for key, rows in devices.items() if (key[0] == "cpu") == (side == "cpu") for r in rows]
          for side in ("cpu", "gpu")}

    def at(side, pipeline, batch):
        return next(r for r in on[side] if (r["pipeline"], r["batch_size"]) == (pipeline, batch))

    def s(side, pipeline, batch, form=".3f"):
        return format(at(side, pipeline, batch)["median_seconds_per_epoch"], form)

    def ratio(a, b):  # how many times faster or slower one record is than the other
        a, b = a["median_seconds_per_epoch"], b["median_seconds_per_epoch"]
        return max(a, b) / min(a, b)

    def x(side, pipeline, other_side, other, batch):
        return f"{ratio(at(side, pipeline, batch), at(other_side, other, batch)):.1f}"

    def span(*args):  # the lowest and highest ratio over the batch sizes
        ratios = [float(x(*args, b)) for b in benchmarks.BATCH_SIZES]
        return [f"{min(ratios):.1f}", f"{max(ratios):.1f}"]

    def run(side):  # the date, release and timed epochs of a device's records
        return [*{r["date"][:10] for r in on[side]}, *{r["torch_version"].split("+")[0] for r in on[side]},
                *{str(r["epochs"]) for r in on[side]}]

    now = at("cpu", "resident", 64)
    earlier = max((r for r in records if r["device_kind"] == "cpu" and r["pipeline"] == "resident"
                   and r["batch_size"] == 64 and r["date"] < now["date"]), key=itemgetter("date"))
    manual = at("cpu", "resident-manual", 64)
    return [
        # the same pipeline on both devices
        s("gpu", "resident", 64), s("cpu", "resident", 64), x("gpu", "resident", "cpu", "resident", 64),
        x("gpu", "resident", "cpu", "resident", 256),
        s("gpu", "resident", 1024), s("cpu", "resident", 1024), x("gpu", "resident", "cpu", "resident", 1024),
        # the CPU's hand-written step against its own eager one and the H100's
        s("cpu", "resident-manual", 64, ".3g"), x("cpu", "resident", "cpu", "resident-manual", 64),
        x("gpu", "resident", "cpu", "resident-manual", 64),
        # the data kept on the device against the plain DataLoader on each device; the DataLoaders on both
        *span("cpu", "dataloader", "cpu", "resident"), *span("gpu", "dataloader", "gpu", "resident"),
        span("gpu", "dataloader-tuned", "cpu", "dataloader-tuned")[1], *span("gpu", "dataloader", "cpu", "dataloader"),
        f"{manual['floor']['seconds']:.2g}", f"{manual['above_floor']:.1f}",
        # the two runs, and the CPU's record before this one
        str(sum("gauge" not in r for r in on["gpu"])), *run("gpu"), *run("cpu"),
        earlier["date"][:10], f"{ratio(earlier, now):.1f}",
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_number_in_the_findings_is_a_records_rounded_value(lang):
    """The findings are the page's prose, written by hand: each number they quote (batch sizes aside, the benchmark's
    settings) is one of _quoted(), and each of those is quoted, in both languages. A new run changes the records:
    this test then names the numbers the findings must be written again for."""
    quoted = Counter(n for n in NUMBER.findall(_findings(lang)) if n not in map(str, benchmarks.BATCH_SIZES))
    wanted = Counter(_quoted())
    assert quoted == wanted, f"quoted, not the records': {quoted - wanted}; the records', not quoted: {wanted - quoted}"
    # what the words around them say: the headline's directions, and the accuracies the last finding calls identical
    devices, _ = benchmarks.latest([json.loads(f.read_text(encoding="utf-8")) for f in RECORDS])
    resident = {row["batch"]: row["gpu_faster"] for row in benchmarks.by_batch(devices)}
    assert resident == {64: False, 256: False, 1024: True}  # the H100's fastest is `resident`, against the CPU's
    assert all(row["gpu"]["pipeline"] == row["same"]["pipeline"] == "resident" for row in benchmarks.by_batch(devices))
    for rows in devices.values():
        for batch in benchmarks.BATCH_SIZES:
            assert len({r["test_accuracy"] for r in rows if r["batch_size"] == batch}) == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_block_over_60_lines_is_unfolded(lang):
    """The longer parts of train.py and bench.py are folded (indented under `??? example`), so the page reads
    without walls of code (issue 51)."""
    for name in ("mnist.md", "mnist-benchmark.md"):
        text = expand_includes((DOCS / lang / name).read_text(encoding="utf-8"), lang)
        long = [f["info"] for f in FENCE.finditer(text) if not f["indent"] and f["code"].count("\n") > 60]
        assert not long, f"docs/{lang}/{name}: unfolded blocks over 60 lines: {long}"
