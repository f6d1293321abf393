import torch


def try_gpu(i: int = 0) -> torch.device:
    """GPU number i if this machine has it, otherwise the CPU."""
    if i < torch.cuda.device_count():
        return torch.device("cuda", i)
    return torch.device("cpu")


def try_all_gpus() -> list[torch.device]:
    """Every visible GPU, or just the CPU when there is none."""
    gpus = [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    return gpus or [torch.device("cpu")]


print(try_gpu(), try_gpu(10), try_all_gpus())
