import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([i * i])  # workers build CPU tensors only


# workers that are not forked (spawn, or Python 3.14's forkserver) import this
# file first: the work waits under this line
if __name__ == "__main__":
    device = (
        torch.accelerator.current_accelerator()
        if torch.accelerator.is_available()
        else torch.device("cpu")
    )
    loader = DataLoader(Squares(), batch_size=4, num_workers=2)
    for batch in loader:
        batch = batch.to(device)  # the main process moves each batch
        print(batch.flatten().tolist())
