import torch

t = torch.tensor([1.0, 2.0])
# Already on that device with that dtype: .to() and .cpu() return t itself,
# nothing is copied.
print(
    t.to(t.device) is t,
    t.to("cpu") is t,
    t.cpu() is t,
    t.to(torch.float32) is t,
)

c = t.to("cpu", copy=True)  # copy=True forces a new tensor with its own memory
print(c is t, c.data_ptr() == t.data_ptr())

alias = t.to("cpu")  # the same tensor, so writing to it writes to t
alias[0] = 9.0
print(t)
