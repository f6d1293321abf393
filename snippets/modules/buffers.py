import torch
from torch import nn

bn = nn.BatchNorm1d(3)
print([name for name, _ in bn.named_buffers()])
running_mean = bn.running_mean

bn.to("meta", torch.float16)
print(bn.running_mean.device, bn.running_mean.dtype)
# moved, but integers keep their dtype
print(bn.num_batches_tracked.device, bn.num_batches_tracked.dtype)
# a reference kept from before is stale
print(bn.running_mean is running_mean, running_mean.device)
