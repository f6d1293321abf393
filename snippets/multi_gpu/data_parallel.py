import torch
from torch import nn

# parameters must sit on device_ids[0] before the first forward()
model = nn.Linear(4, 2).to("cuda:0")
# device_ids defaults to every visible GPU: nothing hard-coded
model = nn.DataParallel(model)
print(model.device_ids == list(range(torch.cuda.device_count())))

# the batch may start on the CPU: forward() splits it across the GPUs
x = torch.randn(64, 4)
y = model(x)
print(y.device, tuple(y.shape))  # the pieces are gathered on device_ids[0]
