import torch

x = torch.tensor([1.5, 2.5])
m = x.to("meta")  # a device name as a string
print(m.device, x.device)  # a copy was made: x itself has not moved

# a torch.device, and a dtype in the same call
h = x.to(torch.device("meta"), torch.float16)
print(h.device, h.dtype)

like = x.to(h)  # the device and dtype of another tensor
print(like.device, like.dtype)
