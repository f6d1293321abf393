import torch

MiB = 2**20


def report(when: str) -> None:
    allocated = torch.cuda.memory_allocated() / MiB  # held by live tensors
    # held by PyTorch's caching allocator, used or not
    reserved = torch.cuda.memory_reserved() / MiB
    print(
        f"{when:24} allocated {allocated:6.1f} MiB, "
        f"reserved {reserved:6.1f} MiB"
    )


report("at start")
x = torch.empty(256 * MiB, dtype=torch.uint8, device="cuda")  # 256 MiB
report("after a 256 MiB tensor")
del x
report("after del")  # the block stays reserved, ready for the next tensor
torch.cuda.empty_cache()
report("after empty_cache()")  # now handed back to the driver
