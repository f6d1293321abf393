"""Time train.py's input pipelines and keep one JSON record per run, for the
MNIST page.

    python snippets/mnist/bench.py --device cpu
    python snippets/mnist/bench.py --device cuda --batch-sizes 64 256 1024 \\
        --probe-loader

Each pipeline trains a fresh model for one warm-up epoch (worker start-up,
caches, CUDA kernels: left out of the timings) and --epochs timed ones, then is
scored on the test set; that for every batch size asked for. Records go to
docs/data/benchmarks/ (or --out), checked against
docs/data/benchmark.schema.json; the site renders them into the page at build
time. --probe-loader adds to the dataloader record where that pipeline's time
goes (see probe_loader). It prints one line per run, then whether the runs
meet the ladder's targets (TARGETS); the MNIST page shows what the records
measured, computed from them when the site is built.
"""

# --8<-- [start:imports]
import json
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


def make_record(
    result: train.Result,
    epochs: int,
    seed: int,
    commit: tuple[str | None, bool | None],
    load_average: float | None,
) -> dict:
    warmup = result.epoch_seconds[:WARMUP_EPOCHS]
    timed = result.epoch_seconds[WARMUP_EPOCHS:]
    median = statistics.median(timed)
    return {
        "schema_version": 1,
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
        "median_seconds_per_epoch": round(median, 4),
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
        f"{'pipeline':<18}{'batch':>6}{'s/epoch':>10}{'images/s':>11}"
        f"{'loss':>8}{'accuracy':>10}"
    ]
    for r in records:
        lines.append(
            f"{r['pipeline']:<18}{r['batch_size']:>6}"
            f"{r['median_seconds_per_epoch']:>10.3f}"
            f"{r['images_per_second']:>11.0f}{r['final_loss']:>8.3f}"
            f"{r['test_accuracy']:>9.2f}%"
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
        default=3,
        help=f"timed epochs after {WARMUP_EPOCHS} warm-up epoch (default 3)",
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
            result = train.run(
                pipeline,
                device,
                epochs,
                batch_size,
                train_set,
                test_set,
                args.seed,
            )
            record = make_record(result, args.epochs, args.seed, commit, load)
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
