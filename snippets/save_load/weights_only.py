import argparse
import pickle
import tempfile
import textwrap
from pathlib import Path

import torch
from torch import nn

# what a training script's command line parsed
args = argparse.Namespace(lr=0.1, epochs=3)
checkpoint = Path(tempfile.gettempdir()) / "linear-with-args.pt"
torch.save({"model": nn.Linear(4, 2).state_dict(), "args": args}, checkpoint)

try:
    torch.load(checkpoint)  # weights_only=True unless you say otherwise
except pickle.UnpicklingError as err:
    lines = str(err).splitlines()
    print(lines[0].split(".")[0])
    found = [line.strip() for line in lines if "Unsupported global" in line]
    print(textwrap.fill(found[0], width=80))

# A file you trust, holding a class you know: allow that class while loading.
with torch.serialization.safe_globals([argparse.Namespace]):
    print(torch.load(checkpoint)["args"])

# Better, when you write the checkpoint: store plain values. Dicts, lists,
# numbers and strings always load.
plain = {"model": nn.Linear(4, 2).state_dict(), "args": vars(args)}
torch.save(plain, checkpoint)
print(torch.load(checkpoint)["args"])
