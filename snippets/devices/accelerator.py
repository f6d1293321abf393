import torch

# current_accelerator() names the backend this build of torch targets, even with no device present:
# only is_available() says whether one can be used right now.
print("accelerator backend:", torch.accelerator.current_accelerator())
print("usable:", torch.accelerator.is_available(), "count:", torch.accelerator.device_count())
device = torch.accelerator.current_accelerator(check_available=True) or torch.device("cpu")
print("computing on:", device)
