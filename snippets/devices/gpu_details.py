import torch

index = torch.cuda.current_device()  # the index plain "cuda" and .cuda() use, not a count
props = torch.cuda.get_device_properties(index)
print(f"{torch.cuda.device_count()} GPU(s); current is cuda:{index}, a {torch.cuda.get_device_name(index)}")
print(f"{props.total_memory / 2**30:.1f} GiB, compute capability {props.major}.{props.minor}")
