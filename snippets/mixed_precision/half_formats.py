import torch

for dtype in (torch.float32, torch.bfloat16, torch.float16):
    info = torch.finfo(dtype)
    print(
        f"{dtype!s:15} largest {info.max:8.3g}",
        f"smallest normal {info.tiny:8.3g}",
        f"step at 1.0 {info.eps:.3g}",
        sep="  ",
    )

# A gradient as small as deep networks often produce:
tiny_grad = torch.tensor(1e-8)
as_float16, as_bfloat16 = tiny_grad.half().item(), tiny_grad.bfloat16().item()
print("1e-8 as float16:", as_float16, "| as bfloat16:", f"{as_bfloat16:.3g}")
