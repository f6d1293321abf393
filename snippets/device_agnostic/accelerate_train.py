# --8<-- [start:program]
"""A training script written for Hugging Face Accelerate: the same file runs
on the CPU, on one GPU, or on several with `accelerate launch`."""

import torch
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main() -> None:
    # The device, the number of processes and the mixed precision come from
    # `accelerate launch` (or from Accelerator's arguments).
    accelerator = Accelerator()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(512, 16), torch.randn(512, 1))
    loader = DataLoader(data, batch_size=32, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    # The model goes to accelerator.device (wrapped in DDP when there are
    # several processes); the loader's batches arrive there, each process
    # getting its own share.
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    epoch_losses = []
    for _ in range(5):
        total = torch.zeros((), device=accelerator.device)
        for inputs, targets in loader:  # no .to(device): already there
            loss = nn.functional.mse_loss(model(inputs), targets)
            optimizer.zero_grad()
            accelerator.backward(loss)  # loss.backward(), scaled for fp16
            optimizer.step()
            total += loss.detach()
        epoch_losses.append(total.item())

    accelerator.print(  # printed by the first process only
        f"{accelerator.device}, {accelerator.num_processes} process(es),"
        f" mixed precision {accelerator.mixed_precision}"
    )
    accelerator.print("loss went down:", epoch_losses[-1] < epoch_losses[0])


# --8<-- [end:program]


if __name__ == "__main__":
    main()
