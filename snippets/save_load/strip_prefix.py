from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

# DistributedDataParallel names the keys the same way
wrapped = nn.DataParallel(nn.Linear(4, 2))
state = wrapped.state_dict()
print(list(state))

model = nn.Linear(4, 2)
try:
    model.load_state_dict(state)
except RuntimeError as err:
    print(str(err).splitlines()[1].strip())

# renames the keys in place
consume_prefix_in_state_dict_if_present(state, "module.")
print(list(state), model.load_state_dict(state))

# When you write the checkpoint yourself, save the wrapped model instead:
# its keys have no prefix.
print(list(wrapped.module.state_dict()))
