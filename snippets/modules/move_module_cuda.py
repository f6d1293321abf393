from torch import nn

net = nn.Linear(3, 1)
weight = net.weight
# in place: no need to write net = net.cuda()
print(net.cuda() is net, net.weight.device)
# the same Parameter object, now in GPU memory
print(net.weight is weight, weight.is_cuda)
print(net.cpu() is net, net.weight.device)
print(net.to("cuda:0").weight.device, net.cuda(device=0).bias.is_cuda)
