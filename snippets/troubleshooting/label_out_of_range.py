import torch
import torch.nn.functional as F

logits = torch.randn(4, 10)  # scores for 10 classes: valid labels are 0 to 9
labels = torch.tensor([3, 0, 10, 7])  # 10 is one past the last class
try:
    F.cross_entropy(logits, labels)
except IndexError as err:
    print("IndexError:", err)
