import torch
from torch import nn

model = nn.Linear(4096, 4096).to("cuda")
total = torch.cuda.get_device_properties(0).total_memory


def train_step(batch_size: int) -> None:
    x = torch.randn(batch_size, 4096, device="cuda")
    model(x).sum().backward()


# an input alone as large as the whole card: it cannot fit
batch_size = total // (4096 * 4)
while True:
    try:
        train_step(batch_size)
        break
    except torch.OutOfMemoryError as err:
        print(f"batch {batch_size}: {str(err).split('.')[0]}")
    # Recover outside the except block: the caught error references the failed
    # step's tensors.
    model.zero_grad(set_to_none=True)
    torch.cuda.empty_cache()
    batch_size //= 2
print(f"batch {batch_size} fits")
