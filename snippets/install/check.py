import torch

print("torch", torch.__version__)
# the toolkit the build was made with: None for the kinds it is not
print("CUDA:", torch.version.cuda)
print("ROCm:", torch.version.hip)
print("XPU:", torch.version.xpu)
# None unless a GPU or other accelerator of the build's kind can be used now
accelerator = torch.accelerator.current_accelerator(check_available=True)
print("accelerator:", accelerator)
# a real computation: a GPU that the build has no kernels for fails here
device = accelerator or torch.device("cpu")
x = torch.arange(3.0, device=device) * 2
print(x.sum().item(), "computed on", x.device)
