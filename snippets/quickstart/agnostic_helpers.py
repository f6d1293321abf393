import torch


def add_noise(x: torch.Tensor, scale: float = 0.1) -> torch.Tensor:
    # *_like creates the noise where x is: the helper needs no device argument.
    return x + scale * torch.randn_like(x)


def accuracy(logits: torch.Tensor, labels: torch.Tensor) -> float:
    # .item() brings a single number back to Python from any device.
    return (logits.argmax(dim=1) == labels).float().mean().item()


device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
x = torch.zeros(2, 3, device=device)  # created on the device, not copied there
print(add_noise(x).device == x.device)

logits = torch.tensor([[2.0, 1.0], [0.0, 3.0]], device=device)
print(accuracy(logits, torch.tensor([0, 0], device=device)))
print(logits.cpu().numpy())  # NumPy reads only CPU memory: .cpu() first
