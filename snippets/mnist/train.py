"""Train a one-layer digit classifier on MNIST, on the CPU or a GPU, and time
every epoch.

    python snippets/mnist/train.py  # the best device this machine has
    python snippets/mnist/train.py --device cpu --pipeline resident --epochs 2
    python snippets/mnist/train.py --device cuda --pipeline resident-graph \\
        --batch-size 256

The --pipeline choices train the same model on the same images in the same
order; only the way the batches are produced and the steps are launched differs
(see the MNIST page). bench.py imports this module to time them.
"""

# --8<-- [start:imports]
import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, Sampler
from torchvision import datasets, transforms
from tqdm import tqdm

# --8<-- [end:imports]

PIPELINES = (
    "dataloader",
    "dataloader-tuned",
    "resident",
    "resident-manual",
    "resident-graph",
)
# replays a CUDA graph: there is nothing to capture on a CPU
CUDA_ONLY = ("resident-graph",)
# Kept at every batch size, so a larger batch changes only how the work is cut
# (fewer, bigger steps); the test accuracy in each record shows what that
# costs. It is also the rule of the first GPU records.
LEARNING_RATE = 0.01
# the same for every pipeline, so the test accuracy is computed identically
EVAL_BATCH_SIZE = 1000


# --8<-- [start:model]
def build_model() -> nn.Module:
    # An MNIST batch has shape (N, 1, 28, 28) but nn.Linear multiplies the
    # LAST dimension only: flatten each image into 784 numbers first, or the
    # product fails (28 columns vs 784 rows).
    return nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10))


# --8<-- [end:model]


# --8<-- [start:data]
# ToTensor turns a 28×28 greyscale image into a (1, 28, 28) float tensor in
# [0, 1]; Normalize then maps [0, 1] to [-1, 1]. This runs once per image,
# every epoch.
PER_IMAGE = transforms.Compose(
    [transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))]
)


def load_mnist(
    root: str | Path, train: bool, download: bool = False
) -> datasets.MNIST:
    """The training (60 000 images) or test (10 000) split, read from
    root/MNIST/raw."""
    return datasets.MNIST(
        root, train=train, download=download, transform=PER_IMAGE
    )


class EpochOrder(Sampler[int]):
    """Shuffles anew each epoch from a seeded generator: same seed, same order,
    on any device."""

    def __init__(self, size: int, generator: torch.Generator):
        self.size, self.generator = size, generator

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[int]:
        order = torch.randperm(self.size, generator=self.generator)
        return iter(order.tolist())


def worker_count() -> int:
    """Worker processes for a tuned DataLoader: one per CPU core we may use, at
    most four."""
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def make_loader(
    dataset: Dataset,
    batch_size: int,
    sampler: Sampler | None,
    tuned: bool,
    device: torch.device,
) -> DataLoader:
    if not tuned:  # the textbook loader: decodes and normalises in this process
        return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        # decode the next batches in parallel with training
        num_workers=worker_count(),
        # keep them alive between training epochs
        persistent_workers=sampler is not None,
        # page-locked batches can be copied asynchronously
        pin_memory=device.type == "cuda",
    )


def to_resident(
    dataset: datasets.MNIST, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """The whole split as one (N, 1, 28, 28) tensor on the device, normalised
    once, as PER_IMAGE would."""
    images = dataset.data.unsqueeze(1).to(device).float()
    images = images.div(255).sub(0.5).div(0.5)
    return images, dataset.targets.to(device)


class ResidentBatches:
    """Batches cut from tensors already on the device; shuffled with the same
    draws as EpochOrder."""

    def __init__(
        self,
        images: torch.Tensor,
        labels: torch.Tensor,
        batch_size: int,
        generator: torch.Generator | None = None,
    ):
        self.images, self.labels = images, labels
        self.batch_size, self.generator = batch_size, generator

    def __len__(self) -> int:
        return math.ceil(len(self.labels) / self.batch_size)

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        n = len(self.labels)
        if self.generator is None:
            order = torch.arange(n, device=self.labels.device)
        else:
            # drawn on the CPU like EpochOrder's, then one copy of 60 000
            # indices per epoch
            order = torch.randperm(n, generator=self.generator)
            order = order.to(self.labels.device)
        for start in range(0, n, self.batch_size):
            index = order[start : start + self.batch_size]
            yield self.images[index], self.labels[index]


# --8<-- [end:data]


# --8<-- [start:graph]
class GraphedSteps:
    """One whole training step captured once as a CUDA graph, then replayed for
    every batch.

    Eagerly, each step of this tiny model is a dozen small kernels, each
    launched by Python; replaying the graph launches them all at once. A graph
    reads and writes fixed addresses, so the step takes its batch through
    tensors that never move: `index` says which resident images form the
    batch, and `weight` gives the padding of a shorter last batch no say in the
    loss.
    """

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        images: torch.Tensor,
        labels: torch.Tensor,
        batch_size: int,
        generator: torch.Generator,
    ):
        self.model, self.optimizer = model, optimizer
        self.images, self.labels = images, labels
        self.batch_size, self.generator = batch_size, generator
        device = images.device
        self.index = torch.zeros(batch_size, dtype=torch.int64, device=device)
        self.weight = torch.ones(batch_size, device=device)
        # The epoch's loss is summed INSIDE the step. A loss tensor made in the
        # graph lives in the graph's memory and the next replay overwrites it,
        # so a list of them (or a sum made outside) would be wrong.
        self.total = torch.zeros((), device=device)
        self.loss_fn = nn.CrossEntropyLoss(reduction="none")
        # None: the same step, run eagerly
        self.graph: torch.cuda.CUDAGraph | None = None

    def step(self) -> None:
        # zero in place: the gradients keep their addresses
        self.optimizer.zero_grad(set_to_none=False)
        logits = self.model(self.images.index_select(0, self.index))
        losses = self.loss_fn(logits, self.labels.index_select(0, self.index))
        # the mean over the real images
        loss = (losses * self.weight).sum() / self.weight.sum()
        loss.backward()
        self.optimizer.step()
        self.total += loss.detach()

    def capture(self, warmup_steps: int = 3) -> None:
        """Warm up on a side stream (as capture requires), record one step,
        then undo the warm-up."""
        start = [p.detach().clone() for p in self.model.parameters()]
        self.index.copy_(torch.arange(self.batch_size) % len(self.labels))
        # streams and graph on the data's GPU, even cuda:1
        with torch.cuda.device(self.images.device):
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                # creates the momentum buffers and the gradients once
                for _ in range(warmup_steps):
                    self.step()
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            # records the kernels, runs none of them
            with torch.cuda.graph(self.graph):
                self.step()
        rewind(self.model, self.optimizer, start)
        self.total.zero_()

    def epoch(self) -> float:
        """One pass over the shuffled images, the same batches as
        ResidentBatches; the mean batch loss."""
        n = len(self.labels)
        order = torch.randperm(n, generator=self.generator)
        order = order.to(self.labels.device)
        self.total.zero_()
        for start in range(0, n, self.batch_size):
            part = order[start : start + self.batch_size]
            # the last, shorter batch: pad with image 0, weighted 0
            if len(part) < self.batch_size:
                self.index.zero_()
                self.weight.zero_()
                self.weight[: len(part)] = 1
            # a copy into the graph's input, on the device
            self.index[: len(part)] = part
            if self.graph is None:
                self.step()
            else:
                self.graph.replay()
        self.weight.fill_(1)
        return self.total.item() / math.ceil(n / self.batch_size)


@torch.no_grad()
def rewind(
    model: nn.Module, optimizer: torch.optim.SGD, start: list[torch.Tensor]
) -> None:
    """Back to the starting weights, with momentum buffers of zero: the next
    step is then exactly a first step."""
    for param, value in zip(model.parameters(), start, strict=True):
        param.copy_(value)  # in place: the captured graph holds these addresses
    for state in optimizer.state.values():
        state["momentum_buffer"].zero_()


# --8<-- [end:graph]


# --8<-- [start:manual]
class ManualSteps:
    """The training step written out by hand: the forward pass, the gradient
    of the loss and the SGD update with momentum, as a dozen tensor
    operations on buffers made once. No autograd, no optimizer object.

    Eagerly, autograd records every step's operations and walks them back,
    the optimizer loops over the parameters, and every result is a fresh
    tensor; for a 784 × 10 linear layer that bookkeeping costs more than the
    arithmetic. The gradient of softmax cross-entropy is short enough to
    write down: softmax(logits) minus the one-hot labels, over the batch size.
    It runs on any device (the CPU's counterpart of a captured CUDA graph).
    """

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.SGD,
        images: torch.Tensor,
        labels: torch.Tensor,
        batch_size: int,
        generator: torch.Generator,
    ):
        linear = model[-1]  # nn.Flatten() has no parameters
        group = optimizer.param_groups[0]  # its settings only: lr, momentum
        self.lr, self.momentum = group["lr"], group["momentum"]
        self.params = [linear.weight, linear.bias]
        self.images = images.flatten(1)  # a view: (N, 784)
        self.labels, self.batch_size = labels, batch_size
        self.generator = generator
        device = images.device
        self.grads = [torch.zeros_like(p) for p in self.params]
        # zero buffers: the first update is then exactly torch.optim.SGD's
        self.velocity = [torch.zeros_like(p) for p in self.params]
        self.x = torch.empty(batch_size, self.images.shape[1], device=device)
        self.logits = torch.empty(
            batch_size, linear.out_features, device=device
        )
        self.minus_one = torch.full((batch_size, 1), -1.0, device=device)
        self.total = torch.zeros((), device=device)

    @torch.no_grad()
    def step(self, index: torch.Tensor) -> None:
        n = len(index)
        weight, bias = self.params
        grad_w, grad_b = self.grads
        x = torch.index_select(self.images, 0, index, out=self.x[:n])
        labels = self.labels[index].unsqueeze(1)
        logits = torch.addmm(bias, x, weight.t(), out=self.logits[:n])
        log_p = torch.log_softmax(logits, dim=1)
        self.total -= log_p.gather(1, labels).mean()  # cross-entropy
        # d loss / d logits = (softmax - one-hot) / n, made in place
        p = log_p.exp_()
        p.scatter_add_(1, labels, self.minus_one[:n]).div_(n)
        torch.mm(p.t(), x, out=grad_w)
        torch.sum(p, dim=0, out=grad_b)
        for param, grad, v in zip(
            self.params, self.grads, self.velocity, strict=True
        ):
            v.mul_(self.momentum).add_(grad)  # as torch.optim.SGD does
            param.add_(v, alpha=-self.lr)

    def epoch(self) -> float:
        """One pass over the same shuffled batches as ResidentBatches; the
        mean batch loss."""
        n = len(self.labels)
        order = torch.randperm(n, generator=self.generator)
        order = order.to(self.labels.device)
        self.total.zero_()
        for start in range(0, n, self.batch_size):
            self.step(order[start : start + self.batch_size])
        return self.total.item() / math.ceil(n / self.batch_size)


# --8<-- [end:manual]


# --8<-- [start:device]
def pick_device(name: str = "auto") -> torch.device:
    """'auto' takes the accelerator if one is usable (CUDA, ROCm, Apple mps,
    ...), else the CPU."""
    usage = "use auto, cpu, cuda, cuda:N or mps"
    if name == "auto":
        accelerator = torch.accelerator.current_accelerator(
            check_available=True
        )
        return accelerator or torch.device("cpu")
    try:
        device = torch.device(name)
    except RuntimeError:
        raise ValueError(f"unknown device {name!r}; {usage}") from None
    asked = f"{name} was asked for, but"
    if device.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            # ROCm builds also use the "cuda" type
            cuda_build = torch.version.cuda or torch.version.hip
            if cuda_build:
                build = "no CUDA GPU is usable here"
            else:
                build = "this PyTorch build has no CUDA support"
            raise ValueError(f"{asked} {build}; use --device cpu or auto")
        if device.index is not None and device.index >= count:
            raise ValueError(f"{asked} only {count} CUDA GPU(s) are visible")
    elif device.type == "mps":
        if not torch.backends.mps.is_available():
            metal = "Apple's Metal backend is not available here"
            raise ValueError(f"mps was asked for, but {metal}")
    elif device.type != "cpu":
        # other accelerators (xpu, ...): usable if torch.<type>.is_available()
        backend = getattr(torch, device.type, None)
        if not (hasattr(backend, "is_available") and backend.is_available()):
            raise ValueError(f"{name} is not usable here; {usage}")
    return device


# --8<-- [end:device]


# --8<-- [start:loop]
def train_epoch(
    model: nn.Module,
    batches: Iterable,
    optimizer: torch.optim.Optimizer,
    device: torch.device,
    item_every_step: bool = False,
) -> float:
    """One pass over the batches; returns the mean of the batch losses."""
    model.train()
    loss_fn = nn.CrossEntropyLoss()
    # summed where the loss lives: no wait for the device
    total = torch.zeros((), device=device)
    running, steps = 0.0, 0
    for images, labels in batches:
        # non_blocking: the copy may overlap with work already queued (needs
        # pinned memory to help)
        images = images.to(device, non_blocking=not item_every_step)
        labels = labels.to(device, non_blocking=not item_every_step)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        if item_every_step:
            # copies one number to the CPU, so waits for the GPU every step
            running += loss.item()
        else:
            total += loss.detach()
        steps += 1
    return (running if item_every_step else total.item()) / steps


# --8<-- [end:loop]


# --8<-- [start:evaluate]
@torch.no_grad()
def evaluate(
    model: nn.Module, batches: Iterable, device: torch.device
) -> float:
    """Percentage of correctly classified images."""
    model.eval()
    correct = torch.zeros((), dtype=torch.int64, device=device)
    seen = 0
    for images, labels in batches:
        images, labels = images.to(device), labels.to(device)
        correct += (model(images).argmax(dim=1) == labels).sum()
        seen += len(labels)
    return 100.0 * correct.item() / seen


# --8<-- [end:evaluate]


@dataclass
class Result:
    pipeline: str
    device: torch.device
    batch_size: int
    epoch_seconds: list[float]  # every epoch, warm-up included
    loss: float  # mean batch loss of the last epoch
    accuracy: float  # on the 10 000 test images, after the last epoch
    setup_seconds: float  # building loaders or copying the data to the device
    train_images: int
    num_workers: int

    def median_seconds(self, skip: int = 0) -> float:
        return statistics.median(self.epoch_seconds[skip:])


def run(
    pipeline: str,
    device: torch.device,
    epochs: int,
    batch_size: int,
    train_set: datasets.MNIST,
    test_set: datasets.MNIST,
    seed: int = 0,
    progress: bool = True,
) -> Result:
    """Train a fresh model for `epochs` epochs with one of PIPELINES, then
    measure test accuracy."""
    if pipeline not in PIPELINES:
        choices = ", ".join(PIPELINES)
        raise ValueError(
            f"unknown pipeline {pipeline!r}; choose one of {choices}"
        )
    problem = unsupported(pipeline, device)
    if problem:
        raise ValueError(problem)
    # the same initial weights for every pipeline and device
    torch.manual_seed(seed)
    model = build_model().to(device)
    optimizer = torch.optim.SGD(
        model.parameters(), lr=LEARNING_RATE, momentum=0.9
    )
    # the same shuffles for every pipeline and device
    order = torch.Generator().manual_seed(seed)

    start = time.perf_counter()
    own_steps = None
    # capturing is part of the set-up, kept out of the epoch times
    if pipeline == "resident-manual":
        images, labels = to_resident(train_set, device)
        own_steps = ManualSteps(
            model, optimizer, images, labels, batch_size, order
        )
        train_batches = ()
        test_data = to_resident(test_set, device)
        test_batches = ResidentBatches(*test_data, EVAL_BATCH_SIZE)
        workers = 0
    elif pipeline == "resident-graph":
        images, labels = to_resident(train_set, device)
        own_steps = GraphedSteps(
            model, optimizer, images, labels, batch_size, order
        )
        own_steps.capture()
        train_batches = ()
        test_data = to_resident(test_set, device)
        test_batches = ResidentBatches(*test_data, EVAL_BATCH_SIZE)
        workers = 0
    elif pipeline == "resident":
        images, labels = to_resident(train_set, device)
        train_batches = ResidentBatches(images, labels, batch_size, order)
        test_data = to_resident(test_set, device)
        test_batches = ResidentBatches(*test_data, EVAL_BATCH_SIZE)
        workers = 0
    else:
        tuned = pipeline == "dataloader-tuned"
        sampler = EpochOrder(len(train_set), order)
        train_batches = make_loader(
            train_set, batch_size, sampler, tuned, device
        )
        test_batches = make_loader(
            test_set, EVAL_BATCH_SIZE, None, tuned, device
        )
        workers = train_batches.num_workers
    setup = time.perf_counter() - start

    seconds, loss = [], math.nan
    for epoch in range(1, epochs + 1):
        # no bar: one replay (or one hand-written step) per batch
        if own_steps is not None:
            start = time.perf_counter()
            # ends by reading the loss, so the GPU has finished
            loss = own_steps.epoch()
            seconds.append(time.perf_counter() - start)
            continue
        bar = tqdm(
            train_batches,
            desc=f"epoch {epoch}/{epochs}",
            unit="batch",
            leave=True,
            disable=not progress,
            file=sys.stderr,
        )
        start = time.perf_counter()
        # train_epoch ends by reading the loss (.item()), so the device has
        # finished when it returns
        plain = pipeline == "dataloader"
        loss = train_epoch(model, bar, optimizer, device, item_every_step=plain)
        seconds.append(time.perf_counter() - start)
        bar.close()
    accuracy = evaluate(model, test_batches, device)
    return Result(
        pipeline,
        device,
        batch_size,
        seconds,
        loss,
        accuracy,
        setup,
        len(train_set),
        workers,
    )


def unsupported(pipeline: str, device: torch.device) -> str | None:
    """Why this pipeline cannot run on this device, in one sentence; None when
    it can."""
    if pipeline in CUDA_ONLY and device.type != "cuda":
        return (
            f"{pipeline} replays a CUDA graph and needs a CUDA GPU; "
            f"on {device.type}, use resident instead"
        )
    return None


class OneLineParser(argparse.ArgumentParser):
    """Reports a bad argument in one line, instead of the usage block followed
    by the message."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number, got {text!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_data_options(parser: argparse.ArgumentParser) -> None:
    """Where MNIST is read from and whether it may be fetched (bench.py too)."""
    parser.add_argument(
        "--data-dir",
        default="data",
        help="MNIST goes to DIR/MNIST/raw (default: data)",
    )
    parser.add_argument(
        "--download",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fetch MNIST if it is missing (default: yes)",
    )


def make_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        description="Train a linear classifier on MNIST on the CPU or a GPU."
    )
    parser.add_argument(
        "--device",
        default="auto",
        help="auto (default), cpu, cuda, cuda:N or mps",
    )
    parser.add_argument(
        "--epochs",
        type=positive_int,
        default=1,
        help="training epochs (default 1)",
    )
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=64,
        help="images per step (default 64)",
    )
    add_data_options(parser)
    parser.add_argument(
        "--pipeline",
        choices=PIPELINES,
        default="dataloader-tuned",
        help="how batches are made (default: dataloader-tuned)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed for the weights and the shuffling",
    )
    parser.add_argument(
        "--threads",
        type=positive_int,
        help="CPU threads per operation "
        "(default: PyTorch's choice, one per core)",
    )
    return parser


def data_problem(error: Exception, data_dir: str | Path, download: bool) -> str:
    """One line saying what went wrong with the data and how to fix it."""
    raw = Path(data_dir) / "MNIST" / "raw"
    if download:
        text = str(error).strip()
        reason = text.splitlines()[-1] if text else type(error).__name__
        return (
            f"could not download MNIST into {raw} ({reason}); check the "
            f"network, or put the four files there and pass --no-download"
        )
    if isinstance(error, RuntimeError) and "not found" in str(error):
        return (
            f"MNIST not found in {raw}; drop --no-download to fetch it, or put "
            f"train-images-idx3-ubyte and the three other files there"
        )
    return f"cannot read MNIST from {raw}: {' '.join(str(error).split())}"


def main(argv: list[str] | None = None) -> None:
    parser = make_parser()
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        device = pick_device(args.device)
    except ValueError as error:
        parser.error(f"argument --device: {error}")
    problem = unsupported(args.pipeline, device)
    if problem:  # before the data is read: refuse at once
        parser.error(f"argument --pipeline: {problem}")
    try:
        train_set = load_mnist(
            args.data_dir, train=True, download=args.download
        )
        test_set = load_mnist(
            args.data_dir, train=False, download=args.download
        )
    except (RuntimeError, OSError) as error:
        problem = data_problem(error, args.data_dir, args.download)
        sys.exit(f"{parser.prog}: {problem}")
    batches = math.ceil(len(train_set) / args.batch_size)
    print(
        f"{args.pipeline} on {device}: {args.epochs} epoch(s) "
        f"of {batches} batches of {args.batch_size}"
    )
    result = run(
        args.pipeline,
        device,
        args.epochs,
        args.batch_size,
        train_set,
        test_set,
        args.seed,
    )
    print(
        f"loss {result.loss:.3f} · test accuracy {result.accuracy:.1f}% · "
        f"{result.median_seconds():.2f} s/epoch (median)"
    )


if __name__ == "__main__":
    main()
