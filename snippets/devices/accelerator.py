import torch

# current_accelerator() names the backend this build of torch targets, even
# with no device present: only is_available() says whether one can be used
# right now.
print("accelerator backend:", torch.accelerator.current_accelerator())
usable = torch.accelerator.is_available()
print("usable:", usable, "count:", torch.accelerator.device_count())
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
print("computing on:", device)
