# --8<-- [start:program]
import textwrap

import torch


def main() -> None:
    # The inter-op pool: sized at most once, before it starts.
    torch.set_num_interop_threads(2)
    print("inter-op threads:", torch.get_num_interop_threads())
    try:
        torch.set_num_interop_threads(4)
    except RuntimeError as error:
        print(textwrap.fill(f"second call: {error}", width=80))

    # The intra-op pool: sized from OMP_NUM_THREADS at start, changeable
    # at any time.
    print("intra-op threads:", torch.get_num_threads())
    torch.set_num_threads(2)
    print("intra-op threads:", torch.get_num_threads())


# --8<-- [end:program]


if __name__ == "__main__":
    main()
