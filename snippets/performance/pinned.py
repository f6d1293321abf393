import torch

batch = torch.randn(1024, 1024)
pinned = batch.pin_memory()  # a copy in page-locked host memory
print(batch.is_pinned(), pinned.is_pinned())

# From pinned memory the copy can run in the background: to() returns at once.
on_gpu = pinned.to("cuda", non_blocking=True)
# queued after the copy on the same stream, so it sees the copied data
result = on_gpu * 2
print(torch.equal(result.cpu(), batch * 2))  # .cpu() waits for both to finish
