import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
blocks = nn.ModuleList(
    nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 256))
    for _ in range(4)
)


def forward(x: torch.Tensor, recompute: bool) -> torch.Tensor:
    for block in blocks:
        # checkpoint() keeps only the block's input and runs the block again
        # in backward()
        x = checkpoint(block, x, use_reentrant=False) if recompute else block(x)
    return x


def kept_for_backward(recompute: bool) -> tuple[int, list[torch.Tensor]]:
    """Bytes of activations autograd keeps, and the gradients."""
    weights = {p.data_ptr() for p in blocks.parameters()}
    kept = 0

    def count(t: torch.Tensor) -> torch.Tensor:
        nonlocal kept
        if t.data_ptr() not in weights:  # the weights are in memory anyway
            kept += t.nbytes
        return t

    with torch.autograd.graph.saved_tensors_hooks(count, lambda t: t):
        loss = forward(x, recompute).sum()
    loss.backward()
    grads = [p.grad.clone() for p in blocks.parameters()]
    blocks.zero_grad(set_to_none=True)
    return kept, grads


x = torch.randn(64, 256)
plain, plain_grads = kept_for_backward(recompute=False)
recomputed, recomputed_grads = kept_for_backward(recompute=True)
print(
    f"kept for backward: {plain / 2**20:.2f} MiB, checkpointed:"
    f" {recomputed / 2**20:.2f} MiB"
)
pairs = zip(plain_grads, recomputed_grads, strict=True)
print("same gradients:", all(torch.allclose(a, b) for a, b in pairs))
