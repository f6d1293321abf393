import torch

# the index plain "cuda" and .cuda() use, not a count
index = torch.cuda.current_device()
name = torch.cuda.get_device_name(index)
props = torch.cuda.get_device_properties(index)
print(f"{torch.cuda.device_count()} GPU(s); current is cuda:{index}, a {name}")
gib = props.total_memory / 2**30
print(f"{gib:.1f} GiB, compute capability {props.major}.{props.minor}")
