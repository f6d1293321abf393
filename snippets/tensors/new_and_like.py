import torch

src = torch.tensor([1.5, 2.5], dtype=torch.float64)
# new_*: a new shape, with src's dtype and device
print(src.new_full((2, 3), 9))
print(src.new_zeros(2), src.new_tensor([1, 2]))
# *_like: src's shape as well; dtype and device can still be overridden
print(torch.ones_like(src), torch.zeros_like(src, dtype=torch.int32))

m = torch.empty(2, 3, device="meta", dtype=torch.float16)
ones = torch.ones_like(m)
print(m.new_zeros(4).device, ones.device, ones.dtype)
print(torch.ones_like(m, device="cpu"))
