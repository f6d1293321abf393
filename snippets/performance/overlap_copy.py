import torch

device = torch.accelerator.current_accelerator()
compute = torch.accelerator.current_stream()
copies = torch.Stream(device)  # a stream for host-to-GPU copies only

weight = torch.randn(4096, 4096, device=device)
# Pinned host memory: only such a copy can run while the GPU computes.
batches = [torch.randn(4096, 4096).pin_memory() for _ in range(4)]


def prefetch(batch: torch.Tensor) -> torch.Tensor:
    with copies:
        return batch.to(device, non_blocking=True)


sums = []
upcoming = prefetch(batches[0])
for i in range(len(batches)):
    compute.wait_stream(copies)  # this batch must have arrived
    current = upcoming
    # Made on the copy stream, used on the compute stream: tell the
    # allocator, so its memory is not reused while the product still runs.
    current.record_stream(compute)
    if i + 1 < len(batches):
        upcoming = prefetch(batches[i + 1])  # copies while the GPU computes
    sums.append((current @ weight).sum())

serial = [(batch.to(device) @ weight).sum() for batch in batches]
print("same results:", torch.allclose(torch.stack(sums), torch.stack(serial)))
