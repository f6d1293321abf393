import torch

last = torch.cuda.device_count() - 1
# from here on, plain "cuda" and .cuda() mean cuda:<last>
torch.cuda.set_device(last)
a = torch.ones(2).cuda()
b = torch.zeros(2, device="cuda")
print(a.device == b.device == torch.device("cuda", last))
# back to the default; a real script sets it once, at the top
torch.cuda.set_device(0)

# The same, but only for one block of code:
with torch.cuda.device(last):
    c = torch.ones(2, device="cuda")
print(c.device.index == last, torch.cuda.current_device() == 0)
