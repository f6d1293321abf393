"""Time train.py's input pipelines and keep one JSON record per run, for the
MNIST page.

    python snippets/mnist/bench.py --device cpu --batch-sizes 64 256 1024
    python snippets/mnist/bench.py --device cuda --batch-sizes 64 256 1024 \\
        --probe-loader

Each pipeline trains a fresh model for one warm-up epoch (worker start-up,
caches, CUDA kernels: left out of the timings) and --epochs timed ones (at
least 5 by default: the record keeps their median and their minimum), then is
scored on the test set; that for every batch size asked for. Before and after
each run a CPU gauge (a fixed piece of pure-Python work) is timed: a run during
which the machine was busy is flagged `contended` in its record, and the page
shows the flag. Each record also holds the run's floor: the least time its
arithmetic and memory traffic need at the device's peak (measured on a CPU,
the vendor's figure for a known GPU). Records go to docs/data/benchmarks/ (or
--out), checked against docs/data/benchmark.schema.json; the site renders them
into the page at build time. --probe-loader adds to the dataloader record
where that pipeline's time goes (see probe_loader). It prints one line per run,
then whether the runs meet the ladder's targets (TARGETS).
"""

# --8<-- [start:imports]
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import torch
import torchvision

# --8<-- [end:imports]
# this script's folder is on sys.path when it runs: its sibling imports plainly
import train

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "docs" / "data" / "benchmark.schema.json"
RECORDS = REPO / "docs" / "data" / "benchmarks"
WARMUP_EPOCHS = 1
TIMED_EPOCHS = 5  # the default: a median and a minimum of 5 or more
SCHEMA_VERSION = 2
# The ladder's targets (CONTRIBUTING.md), against the same device's dataloader
# pipeline at batch 64. Reported after a run, never asserted by a test: a
# timing depends on the machine and on what else runs on it.
TARGETS = {
    "gpu_seconds": 0.08,  # a GPU's fastest run at batch 64: s/epoch, at most
    "gpu_speedup": 100,  # ... and at least this many times the baseline's speed
    "cpu_speedup": 10,  # a CPU's best rung at any batch size
    "tolerance": 0.5,  # test accuracy points from the baseline, at most
}


# --8<-- [start:provenance]
def cpu_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "mps":
        return f"Apple GPU ({platform.machine()})"
    return cpu_name()


def git_commit(checkout: Path) -> tuple[str | None, bool | None]:
    """HEAD of the checkout and whether its files differ from it; (None, None)
    outside a git checkout."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args],
            cwd=checkout,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    try:
        head = git("rev-parse", "HEAD").strip()
        return head, bool(git("status", "--porcelain").strip())
    except (OSError, subprocess.CalledProcessError):
        return None, None


# --8<-- [end:provenance]


# --8<-- [start:noise]
# The CPU gauge: GAUGE_WORK is timed before and after each run. Its reading on
# a quiet machine is QUIET_GAUGE_SECONDS (the 2-core AMD EPYC of the CPU
# records: 0.38 s; 0.96-2.12 s when others were busy); --quiet-gauge gives
# another machine's. A run is flagged contended when either reading exceeds
# GAUGE_LIMIT times the quiet one.
QUIET_GAUGE_SECONDS = 0.38
GAUGE_LIMIT = 1.5
GAUGE_WORK = 3 * 10**7


def gauge() -> float:
    """Seconds of a fixed piece of single-threaded Python work: it grows when
    other processes take the CPU (and when the CPU is slowed)."""
    start = time.perf_counter()
    sum(range(GAUGE_WORK))
    return time.perf_counter() - start


def contention(before: float, after: float, quiet: float) -> dict:
    """The gauge's readings around one run, and whether the run counts as
    contended: either reading above GAUGE_LIMIT times the quiet one."""
    return {
        "before_seconds": round(before, 4),
        "after_seconds": round(after, 4),
        "quiet_seconds": quiet,
        "limit": GAUGE_LIMIT,
        "contended": max(before, after) > GAUGE_LIMIT * quiet,
    }


def epoch_stats(seconds: list[float]) -> dict:
    """The median (the result) and the minimum (the least disturbed epoch) of
    the timed epochs."""
    return {
        "median": round(statistics.median(seconds), 4),
        "min": round(min(seconds), 4),
    }


# --8<-- [end:noise]


# --8<-- [start:floor]
# Vendor peaks of known GPUs: FP32 without tensor cores (PyTorch's default for
# float32 matmuls, torch.backends.cuda.matmul.allow_tf32 = False) and memory
# bandwidth, from NVIDIA's data sheets (SXM boards).
GPU_PEAKS = {
    "NVIDIA H100 80GB HBM3": (
        67e12,
        3.35e12,
        "NVIDIA H100 data sheet: FP32 67 TFLOPS, 3.35 TB/s "
        "(https://www.nvidia.com/en-us/data-center/h100/)",
    ),
    "NVIDIA H200": (
        67e12,
        4.8e12,
        "NVIDIA H200 data sheet: FP32 67 TFLOPS, 4.8 TB/s "
        "(https://www.nvidia.com/en-us/data-center/h200/)",
    ),
}


def measure_peak(device: torch.device, repeats: int = 5) -> tuple:
    """The device's arithmetic (FLOP/s of a 1024 × 1024 float32 matmul) and
    memory read rate (bytes/s of torch.sum over 256 MB), best of `repeats`."""

    def wait() -> None:  # until the device has finished what was queued
        if device.type != "cpu":
            torch.accelerator.synchronize(device)

    def best(work) -> float:
        times = []
        for _ in range(repeats):
            wait()
            start = time.perf_counter()
            work()
            wait()
            times.append(time.perf_counter() - start)
        return min(times)

    a = torch.rand(1024, 1024, device=device)
    out = torch.empty_like(a)
    flops = 2 * 1024**3 / best(lambda: torch.mm(a, a, out=out))
    big = torch.ones(64 * 2**20, device=device)  # 256 MB of float32
    rate = big.numel() * 4 / best(lambda: big.sum())
    return flops, rate, "measured: float32 matmul and torch.sum"


def device_peak(device: torch.device) -> tuple:
    """(FLOP/s, bytes/s, source): the vendor's for a known GPU, else
    measured."""
    if device.type == "cuda":
        known = GPU_PEAKS.get(torch.cuda.get_device_name(device))
        if known:
            return known
    return measure_peak(device)


def floor(train_images: int, batch_size: int, peak: tuple) -> dict:
    """The least time one epoch can take: its arithmetic at the peak FLOP/s
    or its unavoidable memory traffic at the peak read rate, the longer.

    Per image: 784 × 10 multiply-adds forward and as many for the weight
    gradient (2 FLOP each), about 7 more per logit (bias, softmax, loss and
    its gradient); per step, 4 FLOP per parameter for the momentum update.
    Traffic: every image (784 float32) and label (int64) read once; the
    weights (31 KB) stay in cache.
    """
    features, classes = 28 * 28, 10
    params = features * classes + classes
    steps = math.ceil(train_images / batch_size)
    flop = train_images * (4 * features * classes + 7 * classes)
    flop += steps * 4 * params
    traffic = train_images * (features * 4 + 8)
    flops, rate, source = peak
    return {
        "flop": flop,
        "bytes": traffic,
        "peak_flop_per_second": float(f"{flops:.4g}"),
        "peak_bytes_per_second": float(f"{rate:.4g}"),
        "peak_source": source,
        "seconds": float(f"{max(flop / flops, traffic / rate):.4g}"),
    }


# --8<-- [end:floor]


def make_record(
    result: train.Result,
    epochs: int,
    seed: int,
    commit: tuple[str | None, bool | None],
    load_average: float | None,
    noise: dict,
    peak: tuple,
) -> dict:
    warmup = result.epoch_seconds[:WARMUP_EPOCHS]
    timed = result.epoch_seconds[WARMUP_EPOCHS:]
    stats = epoch_stats(timed)
    median = statistics.median(timed)
    return {
        "schema_version": SCHEMA_VERSION,
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "device_kind": result.device.type,
        "device_name": device_name(result.device),
        "cpu_cores": cpu_cores(),
        "torch_threads": torch.get_num_threads(),
        "load_average": load_average,
        "torch_version": torch.__version__,
        "torch_cuda_version": torch.version.cuda,
        "torchvision_version": torchvision.__version__,
        "python_version": platform.python_version(),
        "commit": commit[0],
        "commit_dirty": commit[1],
        "pipeline": result.pipeline,
        "batch_size": result.batch_size,
        "epochs": epochs,
        "warmup_epochs": WARMUP_EPOCHS,
        "num_workers": result.num_workers,
        "seed": seed,
        "train_images": result.train_images,
        "warmup_seconds": [round(s, 4) for s in warmup],
        "seconds_per_epoch": [round(s, 4) for s in timed],
        "median_seconds_per_epoch": stats["median"],
        "min_seconds_per_epoch": stats["min"],
        "contended": noise["contended"],
        "gauge": {k: v for k, v in noise.items() if k != "contended"},
        "floor": floor(result.train_images, result.batch_size, peak),
        "setup_seconds": round(result.setup_seconds, 4),
        "images_per_second": round(result.train_images / median, 1),
        "final_loss": round(result.loss, 4),
        "test_accuracy": round(result.accuracy, 2),
        "learning_rate": train.LEARNING_RATE,
    }


# --8<-- [start:probe]
def probe_loader(
    train_set, device: torch.device, batch_size: int, steps: int = 200
) -> dict:
    """Where the plain DataLoader pipeline spends a step: making the batch,
    copying it, training on it.

    Also the cost of the per-image transform with PyTorch's thread count and
    with one thread, and, on a GPU, the copy of one batch from ordinary
    (pageable) and from page-locked (pinned) memory.
    """
    threads = torch.get_num_threads()
    per_image = {}
    for count in (threads, 1):
        torch.set_num_threads(count)
        start = time.perf_counter()
        for i in range(2000):
            # PIL image, ToTensor, Normalize: what the loader does per image
            train_set[i]
        per_image[count] = (time.perf_counter() - start) / 2000 * 1e6
    torch.set_num_threads(threads)

    model = train.build_model().to(device)
    optimizer = torch.optim.SGD(
        model.parameters(), lr=train.LEARNING_RATE, momentum=0.9
    )
    loss_fn = torch.nn.CrossEntropyLoss()
    loader = train.make_loader(
        train_set, batch_size, None, tuned=False, device=device
    )
    steps = min(steps, len(loader))  # at batch 1024 an epoch has only 59 steps
    batches = iter(loader)
    making = copying = training = 0.0
    for _ in range(steps):
        t0 = time.perf_counter()
        images, labels = next(batches)  # the loader's work, in this process
        t1 = time.perf_counter()
        # blocking copy, as the guide writes it
        images, labels = images.to(device), labels.to(device)
        t2 = time.perf_counter()
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        # the guide's read of the loss: waits for the device to finish the step
        loss.item()
        t3 = time.perf_counter()
        making += t1 - t0
        copying += t2 - t1
        training += t3 - t2

    copy_us = {"pageable": None, "pinned": None}
    if device.type == "cuda":
        batch = torch.rand(batch_size, 1, 28, 28)
        for kind, source in (
            ("pageable", batch),
            ("pinned", batch.pin_memory()),
        ):
            times = []
            for _ in range(50):
                torch.cuda.synchronize(device)
                start = time.perf_counter()
                source.to(device, non_blocking=True)
                torch.cuda.synchronize(device)  # until the copy has landed
                times.append(time.perf_counter() - start)
            copy_us[kind] = round(statistics.median(times) * 1e6, 2)
    return {
        "steps": steps,
        "threads": threads,
        "transform_us_per_image": round(per_image[threads], 2),
        "transform_us_per_image_one_thread": round(per_image[1], 2),
        "make_batch_ms": round(making / steps * 1000, 4),
        "copy_batch_ms": round(copying / steps * 1000, 4),
        "train_step_ms": round(training / steps * 1000, 4),
        "copy_us_pageable": copy_us["pageable"],
        "copy_us_pinned": copy_us["pinned"],
    }


# --8<-- [end:probe]


def record_path(out: Path, record: dict) -> Path:
    """docs/data/benchmarks/2026-05-10_cpu_amd-epyc_resident_bs64.json: a rerun
    on the same day replaces it."""
    name = re.sub(r"[^a-z0-9]+", "-", record["device_name"].lower()).strip("-")
    return out / (
        f"{record['date'][:10]}_{record['device_kind']}_{name}"
        f"_{record['pipeline']}_bs{record['batch_size']}.json"
    )


def write_record(out: Path, record: dict, schema: dict) -> Path:
    # never publish a record the site would refuse
    jsonschema.validate(record, schema)
    path = record_path(out, record)
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return path


def summary(records: list[dict]) -> str:
    """One line per run (the MNIST page compares the records)."""
    lines = [
        f"{'pipeline':<18}{'batch':>6}{'s/epoch':>10}{'min':>8}"
        f"{'floor':>8}{'images/s':>11}{'loss':>8}{'accuracy':>10}  gauge"
    ]
    for r in records:
        g = r["gauge"]
        lines.append(
            f"{r['pipeline']:<18}{r['batch_size']:>6}"
            f"{r['median_seconds_per_epoch']:>10.3f}"
            f"{r['min_seconds_per_epoch']:>8.3f}"
            f"{r['median_seconds_per_epoch'] / r['floor']['seconds']:>7.0f}x"
            f"{r['images_per_second']:>11.0f}{r['final_loss']:>8.3f}"
            f"{r['test_accuracy']:>9.2f}%"
            f"  {g['before_seconds']:.2f}/{g['after_seconds']:.2f} s"
            + ("  CONTENDED" if r["contended"] else "")
        )
    busy = sum(r["contended"] for r in records)
    if busy:
        lines.append(
            f"{busy} of {len(records)} runs CONTENDED: a gauge reading over "
            f"{GAUGE_LIMIT} x {records[0]['gauge']['quiet_seconds']} s; "
            "their records say so, and so does the page"
        )
    return "\n".join(lines)


def targets(records: list[dict]) -> str:
    """Whether these runs meet the ladder's targets: on a GPU its fastest
    pipeline at batch 64, on a CPU its best run at any batch size, each against
    the dataloader pipeline at batch 64 (which the runs must include)."""
    base = next(
        (
            r
            for r in records
            if r["pipeline"] == "dataloader" and r["batch_size"] == 64
        ),
        None,
    )
    if base is None:
        return "targets: not checked (they need the dataloader run at batch 64)"
    gpu = base["device_kind"] != "cpu"
    best = min(
        (r for r in records if r["batch_size"] == 64 or not gpu),
        key=lambda r: r["median_seconds_per_epoch"],
    )
    seconds = best["median_seconds_per_epoch"]
    speedup = base["median_seconds_per_epoch"] / seconds
    spread = abs(best["test_accuracy"] - base["test_accuracy"])
    want = TARGETS["gpu_speedup"] if gpu else TARGETS["cpu_speedup"]
    checks = [
        (
            f"{speedup:.1f}x the dataloader pipeline",
            f">= {want}x",
            speedup >= want,
        ),
        (
            f"accuracy {spread:.2f} points from it",
            f"<= {TARGETS['tolerance']}",
            spread <= TARGETS["tolerance"] + 1e-9,
        ),
    ]
    if gpu:
        checks.insert(
            0,
            (
                f"{seconds:.3f} s/epoch",
                f"<= {TARGETS['gpu_seconds']} s",
                seconds <= TARGETS["gpu_seconds"],
            ),
        )
    lines = [
        f"targets ({best['device_name']}, best: {best['pipeline']} at batch "
        f"{best['batch_size']}):"
    ]
    for measured, target, met in checks:
        lines.append(
            f"  {measured} (target {target}): {'met' if met else 'NOT met'}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = train.OneLineParser(
        description="Time the MNIST input pipelines and record the results."
    )
    parser.add_argument(
        "--device",
        default="auto",
        help="auto (default), cpu, cuda, cuda:N or mps",
    )
    parser.add_argument(
        "--pipelines",
        nargs="+",
        choices=train.PIPELINES,
        metavar="PIPELINE",
        help=f"any of {', '.join(train.PIPELINES)} "
        "(default: every one this device can run)",
    )
    parser.add_argument(
        "--batch-sizes",
        "--batch-size",
        dest="batch_sizes",
        nargs="+",
        type=train.positive_int,
        default=[64],
        metavar="N",
        help="one run of every pipeline per batch size (default 64)",
    )
    parser.add_argument(
        "--epochs",
        type=train.positive_int,
        default=TIMED_EPOCHS,
        help=f"timed epochs after {WARMUP_EPOCHS} warm-up epoch "
        f"(default {TIMED_EPOCHS})",
    )
    parser.add_argument(
        "--quiet-gauge",
        type=float,
        default=QUIET_GAUGE_SECONDS,
        metavar="SECONDS",
        help="the CPU gauge's reading on this machine when it is idle "
        f"(default {QUIET_GAUGE_SECONDS}, the 2-core AMD EPYC's)",
    )
    train.add_data_options(parser)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threads",
        type=train.positive_int,
        help="CPU threads per operation "
        "(default: PyTorch's choice, one per core)",
    )
    parser.add_argument(
        "--probe-loader",
        action="store_true",
        help="also measure where the dataloader pipeline's time goes "
        "(into its record)",
    )
    parser.add_argument(
        "--out", type=Path, default=RECORDS, help="folder for the JSON records"
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        device = train.pick_device(args.device)
    except ValueError as error:
        parser.error(f"argument --device: {error}")
    if args.pipelines is None:  # every rung this device can run
        args.pipelines = [
            p for p in train.PIPELINES if train.unsupported(p, device) is None
        ]
    for pipeline in args.pipelines:
        problem = train.unsupported(pipeline, device)
        if problem:  # asked for by name: refuse before anything runs
            parser.error(f"argument --pipelines: {problem}")
    try:
        train_set = train.load_mnist(
            args.data_dir, train=True, download=args.download
        )
        test_set = train.load_mnist(
            args.data_dir, train=False, download=args.download
        )
    except (RuntimeError, OSError) as error:
        problem = train.data_problem(error, args.data_dir, args.download)
        sys.exit(f"{parser.prog}: {problem}")

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    commit = git_commit(REPO)  # before we add records to the tree
    args.out.mkdir(parents=True, exist_ok=True)
    records = []
    epochs = WARMUP_EPOCHS + args.epochs
    peak = device_peak(device)  # once: every record of the run shares it
    for batch_size in dict.fromkeys(args.batch_sizes):
        for pipeline in dict.fromkeys(args.pipelines):
            print(
                f"{pipeline} on {device}: {WARMUP_EPOCHS} warm-up + "
                f"{args.epochs} timed epoch(s), batch size {batch_size}",
                file=sys.stderr,
            )
            load = None
            if hasattr(os, "getloadavg"):
                load = round(os.getloadavg()[0], 2)  # others' work, too
            before = gauge()
            result = train.run(
                pipeline,
                device,
                epochs,
                batch_size,
                train_set,
                test_set,
                args.seed,
            )
            noise = contention(before, gauge(), args.quiet_gauge)
            record = make_record(
                result, args.epochs, args.seed, commit, load, noise, peak
            )
            if noise["contended"]:
                print(
                    f"CONTENDED: the gauge read {noise['before_seconds']} s "
                    f"before and {noise['after_seconds']} s after (quiet: "
                    f"{args.quiet_gauge} s); the record is flagged",
                    file=sys.stderr,
                )
            if args.probe_loader and pipeline == "dataloader":
                probe = probe_loader(train_set, device, batch_size)
                record["loader_probe"] = probe
            path = write_record(args.out, record, schema)
            print(f"wrote {path}", file=sys.stderr)
            records.append(record)
    print(summary(records))
    print(targets(records))


if __name__ == "__main__":
    main()
