# --8<-- [start:program]
"""A script whose device is chosen on the command line:

python cli.py --device auto|cpu|cuda|cuda:N|mps
"""

import argparse
import re

import torch


def resolve_device(name: str) -> torch.device:
    """Turn a --device value into a usable torch.device, or raise ValueError."""
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if not re.fullmatch(r"cpu|mps|cuda(:\d+)?", name):
        choices = "auto, cpu, cuda, cuda:N, mps"
        raise ValueError(f"unknown device {name!r} (choose from {choices})")
    device = torch.device(name)
    if device.type == "cuda":
        count = torch.cuda.device_count()
        if count == 0:
            raise ValueError(f"{name!r} needs a CUDA GPU, and none is visible")
        if device.index is not None and device.index >= count:
            raise ValueError(
                f"{name!r} does not exist: "
                f"the visible GPUs are cuda:0 to cuda:{count - 1}"
            )
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"{name!r} needs Apple's MPS backend, not available")
    return device


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Run a small computation on the chosen device."
    )
    parser.add_argument(
        "--device",
        default="auto",
        help="auto (default), cpu, cuda, cuda:N or mps",
    )
    args = parser.parse_args()
    try:
        device = resolve_device(args.device)
    except ValueError as err:
        # one line, no traceback
        parser.exit(2, f"{parser.prog}: error: {err}\n")

    x = torch.ones(2, 2, device=device)
    print(f"running on {device}: {(x @ x).sum().item():.0f}")


# --8<-- [end:program]


if __name__ == "__main__":
    main()
