# --8<-- [start:program]
"""Check on one machine that Gloo finds the interface GLOO_SOCKET_IFNAME names.

GLOO_SOCKET_IFNAME=eth0 python snippets/multi_gpu/check_interface.py
"""

import os

import torch.distributed as dist


def main() -> None:
    name = os.environ.get("GLOO_SOCKET_IFNAME", "the default interface")
    try:
        # a group of one process: Gloo looks the interface up, as in training
        dist.init_process_group(
            "gloo", store=dist.HashStore(), rank=0, world_size=1
        )
    except RuntimeError as error:
        # after "[enforce fail at <file in Gloo's source>:<line>] "
        print(str(error).split("] ", 1)[-1])
    else:
        print(f"Gloo can use {name}")
        dist.destroy_process_group()


# --8<-- [end:program]


if __name__ == "__main__":
    main()
