# --8<-- [start:program]
import torch
import torch.nn.functional as F


def main() -> None:
    # scores for 10 classes: valid labels are 0 to 9
    logits = torch.randn(4, 10, device="cuda")
    # 10 is one past the last class
    labels = torch.tensor([3, 0, 10, 7], device="cuda")
    try:
        loss = F.cross_entropy(logits, labels)
        # without CUDA_LAUNCH_BLOCKING=1 the error may only surface here
        print(loss.item())
    except RuntimeError as err:
        print("RuntimeError:", err)


# --8<-- [end:program]


if __name__ == "__main__":
    main()
