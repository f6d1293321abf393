# --8<-- [start:program]
import torch
import torch.multiprocessing as mp


def consumer(queue, done) -> None:
    x = queue.get()  # the producer's GPU memory, not a copy
    print("consumer:", x.sum().item(), "on", x.device)
    del x  # give it back as soon as possible
    done.set()


def main() -> None:
    x = torch.arange(4.0, device="cuda")
    context = mp.get_context("spawn")
    queue, done = context.Queue(), context.Event()
    process = context.Process(target=consumer, args=(queue, done))
    process.start()
    queue.put(x)
    done.wait()  # keep x, and this process, alive until the consumer is done
    process.join()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
