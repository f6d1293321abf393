import torch
from torch.utils.data import DataLoader, Dataset

device = (
    torch.accelerator.current_accelerator()
    if torch.accelerator.is_available()
    else torch.device("cpu")
)


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([i * i])  # workers build CPU tensors only


loader = DataLoader(Squares(), batch_size=4, num_workers=2)
for batch in loader:
    batch = batch.to(device)  # the main process moves each batch
    print(batch.flatten().tolist())
