import textwrap

import torch

# Putting a tensor on a backend the machine lacks fails, and each backend fails
# its own way: ask is_available() first instead of catching these.
for name in ("cuda", "mps", "xpu"):
    try:
        torch.zeros(1, device=name)
        print(f"{name}: ok")
    except (RuntimeError, NotImplementedError, AssertionError) as err:
        first_sentence = str(err).split(". ")[0]
        message = f"{name}: {type(err).__name__}: {first_sentence}"
        print(textwrap.fill(message, width=80, subsequent_indent="    "))
