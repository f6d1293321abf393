import torch

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)
# a generator of your own, made on the device it will draw for
gen = torch.Generator(device=device).manual_seed(0)
noise = torch.randn(3, device=device, generator=gen)

torch.manual_seed(123)  # the global seed does not touch `gen`
gen.manual_seed(0)
again = torch.randn(3, device=device, generator=gen)
print("same numbers again:", torch.equal(noise, again))

# and draws from `gen` do not move the global stream
torch.manual_seed(0)
a = torch.randn(3, device=device)
torch.manual_seed(0)
torch.randn(1000, device=device, generator=gen)
b = torch.randn(3, device=device)
print("global stream untouched:", torch.equal(a, b))
