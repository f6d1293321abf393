import torch

device = torch.accelerator.current_accelerator()  # cuda on a CUDA or ROCm build
default = torch.accelerator.current_stream()  # where work goes unless you say
side = torch.Stream(device)  # a second queue on the same GPU

a = torch.randn(2048, 2048, device=device)  # queued on the default stream
# The side stream knows nothing of that queue: make it wait for `a`.
side.wait_stream(default)
with side:  # everything queued in this block goes to the side stream
    b = a @ a
    print("inside the block:", torch.accelerator.current_stream() == side)
print("after the block:", torch.accelerator.current_stream() == default)

# Before the default stream uses `b`, it must wait for the side stream.
default.wait_stream(side)
print("same result:", torch.allclose(b, a @ a))
