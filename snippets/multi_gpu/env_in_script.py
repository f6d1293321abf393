# --8<-- [start:program]
"""Choose the GPUs from inside a script.

CUDA_VISIBLE_DEVICES must be set before CUDA starts up.
"""

import os


def main() -> None:
    # CUDA fixes the process's GPUs when it starts (torch.cuda.is_available()
    # already starts it); a later change would only mislead
    # torch.cuda.device_count(). Before `import torch` is early enough.
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    import torch

    print("GPUs this process sees:", torch.cuda.device_count())


# --8<-- [end:program]


if __name__ == "__main__":
    main()
