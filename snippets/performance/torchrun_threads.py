import os

import torch

rank = os.environ.get("RANK", "0")  # torchrun sets it; a plain run is rank 0
omp = os.environ.get("OMP_NUM_THREADS", "not set")
threads = torch.get_num_threads()
print(f"rank {rank}: OMP_NUM_THREADS={omp}, {threads} thread(s)")
