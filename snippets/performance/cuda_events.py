import time

import torch

a = torch.randn(4096, 4096, device="cuda")
a @ a  # warm-up
torch.cuda.synchronize()

start = time.perf_counter()
b = a @ a
# the call returned: the work is queued, not done
queued = time.perf_counter() - start
torch.cuda.synchronize()
done = time.perf_counter() - start
print(
    f"a @ a returned after {queued * 1e3:.3f} ms; "
    f"the GPU finished after {done * 1e3:.3f} ms"
)

# CUDA events are time stamps taken by the GPU itself, in its queue.
begin = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
begin.record()
b = a @ a
end.record()
end.synchronize()  # wait for the second stamp before reading it
print(f"measured by events: {begin.elapsed_time(end):.3f} ms")
