import argparse
import tempfile
from pathlib import Path

import torch

checkpoint = Path(tempfile.gettempdir()) / "args-allowed.pt"
torch.save({"args": argparse.Namespace(lr=0.1, epochs=3)}, checkpoint)

# Allow the class for the rest of the process, and ask for weights_only=True:
# it is not yet torch.load's default on these releases.
torch.serialization.add_safe_globals([argparse.Namespace])
print(torch.load(checkpoint, weights_only=True)["args"])
