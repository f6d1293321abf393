# --8<-- [start:program]
import multiprocessing
import textwrap

import torch


def child() -> None:
    try:
        torch.cuda.init()  # the first thing a CUDA tensor would do here
        print("child: CUDA initialised")
    except RuntimeError as error:
        print(textwrap.fill(f"child: {error}", width=80))


def main() -> None:
    print("GPU usable:", torch.cuda.is_available())
    # "fork" is Linux's default start method up to Python 3.13
    process = multiprocessing.get_context("fork").Process(target=child)
    process.start()
    process.join()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
