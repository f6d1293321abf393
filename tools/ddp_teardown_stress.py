"""Stress the multi-GPU page's torchrun command the way a busy laptop would: N launches of
`torchrun --standalone --nproc-per-node=2 <script>` with two busy loops beside them, counting the launches
that do not exit cleanly with the page's output (issue 21: Gloo's teardown abort). Not part of the suite.

    .venv/bin/python tools/ddp_teardown_stress.py --launches 50 [--script snippets/multi_gpu/ddp_train.py]
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXPECTED = "world size 2, backend gloo\nparameters identical on all ranks: True\nloss fell: True\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=50)
    parser.add_argument("--busy-loops", type=int, default=2)
    parser.add_argument("--script", default="snippets/multi_gpu/ddp_train.py")
    args = parser.parse_args()
    if not (REPO / args.script).is_file():
        parser.error(f"no such script: {args.script}")
    torchrun = Path(sys.executable).with_name("torchrun")
    command = [str(torchrun), "--standalone", "--nproc-per-node=2", args.script]
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy_loops)]
    failures = 0
    started = time.monotonic()
    try:
        for n in range(1, args.launches + 1):
            run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
            clean = run.returncode == 0 and run.stdout == EXPECTED and "terminate called" not in run.stderr
            failures += not clean
            why = "" if clean else f"  exit {run.returncode}: " + (
                "terminate called" if "terminate called" in run.stderr else run.stderr.strip()[-200:])
            print(f"launch {n:3d}: {'clean' if clean else 'FAILED'}{why}", flush=True)
    finally:
        for loop in busy:
            loop.kill()
    print(f"{args.script}: {failures} of {args.launches} launches failed, with {args.busy_loops} busy loops "
          f"beside them ({time.monotonic() - started:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
