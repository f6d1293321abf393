from torch.distributed.constants import (
    default_pg_nccl_timeout,
    default_pg_timeout,
)

# How long a collective may wait for the other ranks when init_process_group
# gets no timeout=
print("NCCL:", default_pg_nccl_timeout)
print("Gloo and the others:", default_pg_timeout)
