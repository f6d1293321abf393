import torch

# Time every convolution algorithm cuDNN offers for each new input shape, and
# keep the fastest. Worth it when shapes repeat (fixed image size and batch
# size); costly when they keep changing.
torch.backends.cudnn.benchmark = True
print("cudnn.benchmark:", torch.backends.cudnn.benchmark)
