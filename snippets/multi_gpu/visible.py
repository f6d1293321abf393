import os

import torch

# CUDA numbers the GPUs it may see from 0, whatever their physical numbers are.
print("CUDA_VISIBLE_DEVICES =", repr(os.environ.get("CUDA_VISIBLE_DEVICES")))
count = torch.cuda.device_count()
print("GPUs this process sees:", count)
if count:
    print("a plain .cuda() lands on:", torch.ones(1).cuda().device)
