import torch

for dtype in (torch.float32, torch.bfloat16, torch.float16):
    info = torch.finfo(dtype)
    print(f"{dtype!s:15} largest {info.max:9.3g}  smallest normal {info.tiny:9.3g}  step at 1.0 {info.eps:.3g}")

# A gradient as small as deep networks often produce:
tiny_grad = torch.tensor(1e-8)
print("1e-8 as float16:", tiny_grad.half().item(), "| as bfloat16:", f"{tiny_grad.bfloat16().item():.3g}")
