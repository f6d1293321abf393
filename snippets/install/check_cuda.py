import torch

# raises, saying why, when no CUDA GPU can be used (no driver, a driver too old)
torch.cuda.init()
print("built for CUDA", torch.version.cuda, "with kernels for")
print(" ", *torch.cuda.get_arch_list())
for i in range(torch.cuda.device_count()):
    name = torch.cuda.get_device_name(i)
    major, minor = torch.cuda.get_device_capability(i)
    print(f"cuda:{i} {name}, compute capability {major}.{minor}")
    # the first kernel on this GPU: "no kernel image is available" if none fits
    x = torch.arange(3.0, device=i) * 2
    print("  computed", x.sum().item())
