# FSDP2's fully_shard, where it lived before torch.distributed.fsdp had it
from torch.distributed._composable.fsdp import fully_shard

print(fully_shard.__name__)
