from torch import nn

net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
# the usual question: where is the first parameter?
print(next(net.parameters()).device)
print({p.device for p in net.parameters()})  # all of them, should they differ
# a module without parameters has nothing to ask
print(next(nn.ReLU().parameters(), None))
