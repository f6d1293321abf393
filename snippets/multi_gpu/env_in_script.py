# --8<-- [start:program]
"""Choose the GPUs from inside a script: CUDA_VISIBLE_DEVICES must be set before CUDA starts up."""

import os


def main() -> None:
    # CUDA reads the variable once, when the process first uses it; changing it later does nothing.
    # Setting it before torch is even imported is the simplest way to be early enough.
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    import torch

    print("GPUs this process sees:", torch.cuda.device_count())

# --8<-- [end:program]


if __name__ == "__main__":
    main()
