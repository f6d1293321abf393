import torch

# the machine's accelerator: cuda on an NVIDIA or AMD GPU, mps, xpu... or None
device = torch.accelerator.current_accelerator(check_available=True)
if device is None:
    raise SystemExit(
        "This example needs a GPU or another accelerator (CUDA, MPS, XPU, ...);"
        " none is available."
    )
a = torch.randn(4096, 4096, device=device)
a @ a  # warm-up

# torch.Event: the time stamps of torch.cuda.Event, for any accelerator
begin = torch.Event(device, enable_timing=True)
end = torch.Event(device, enable_timing=True)
begin.record()  # queued on the current stream, like the work
b = a @ a
end.record()
end.synchronize()  # the CPU waits until the second stamp is taken
print(f"a @ a on {device.type}: {begin.elapsed_time(end):.3f} ms")
