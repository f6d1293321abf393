import os
import sys

import torch

rank = os.environ.get("RANK", "0")  # torchrun sets it; a plain run is rank 0
omp = os.environ.get("OMP_NUM_THREADS", "not set")
threads = torch.get_num_threads()
# One write per line. Unbuffered (PYTHONUNBUFFERED=1), print() writes the
# text and the newline apart, and two ranks on one pipe can splice lines.
word = "thread" if threads == 1 else "threads"
sys.stdout.write(f"rank {rank}: OMP_NUM_THREADS={omp}, {threads} {word}\n")
