import torch
from torch import nn

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
wrapped = nn.DataParallel(model)
# With no usable GPU, DataParallel keeps an empty device list
# and just calls the module.
print(wrapped.device_ids, wrapped.module is model)
x = torch.randn(3, 4, device=device)
print(torch.allclose(wrapped(x), model(x)))
# The wrapper adds "module." to every state_dict key: if the weights are to
# be loaded into an unwrapped model later, save wrapped.module.state_dict()
# instead.
print(list(wrapped.state_dict()))
