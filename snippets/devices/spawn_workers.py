# --8<-- [start:program]
import torch
import torch.multiprocessing as mp


def worker(rank: int, results) -> None:
    # A spawned process starts afresh: it may start CUDA, whatever the
    # parent did before.
    device = torch.accelerator.current_accelerator(check_available=True)
    device = device or torch.device("cpu")
    total = (torch.arange(4.0, device=device) * (rank + 1)).sum()
    results.put((rank, device.type, total.item()))


def main() -> None:
    print("GPU usable:", torch.cuda.is_available())  # would spoil a fork
    results = mp.get_context("spawn").SimpleQueue()
    mp.spawn(worker, args=(results,), nprocs=2)  # waits for both
    for rank, device, total in sorted(results.get() for _ in range(2)):
        print(f"worker {rank} on {device}: {total}")


# --8<-- [end:program]


if __name__ == "__main__":
    main()
