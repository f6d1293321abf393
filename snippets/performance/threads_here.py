import os

import torch

print("logical CPUs:", os.cpu_count())
print("intra-op threads:", torch.get_num_threads())
print("inter-op threads:", torch.get_num_interop_threads())
# the whole picture: the libraries, their thread counts, the variables
print(torch.__config__.parallel_info())
