# --8<-- [start:program]
"""Which kernels of this CUDA build of PyTorch can run on a GPU.

python snippets/install/arch_support.py          # the GPUs of this machine
python snippets/install/arch_support.py 6.0 8.9  # GPUs of these capabilities
"""

import re
import sys

import torch


def runs_on(arch, major, minor):
    """Whether code built for arch (such as sm_86 or compute_90) runs on a GPU
    of compute capability major.minor, by NVIDIA's compatibility rules."""
    pattern = r"(sm|compute)_(\d+)([af]?)"
    kind, number, suffix = re.fullmatch(pattern, arch).groups()
    code = divmod(int(number), 10)
    if kind == "compute":
        # PTX: compiled for the GPU at load time, on this capability or newer
        return (major, minor) >= code
    if suffix == "a":
        # architecture-specific code: this capability only
        return (major, minor) == code
    # machine code: the same major version, the same or a higher minor one
    return major == code[0] and minor >= code[1]


def capability(text):
    match = re.fullmatch(r"(\d+)\.(\d)", text)
    if match is None:
        sys.exit(f"not a compute capability: {text!r} (write it like 8.6)")
    return int(match[1]), int(match[2])


def main():
    if torch.version.cuda is None:
        sys.exit(f"torch {torch.__version__} is not a CUDA build")
    if len(sys.argv) > 1:
        gpus = [(f"capability {arg}", capability(arg)) for arg in sys.argv[1:]]
    else:
        gpus = [
            (torch.cuda.get_device_name(i), torch.cuda.get_device_capability(i))
            for i in range(torch.cuda.device_count())
        ]
    if not gpus:
        sys.exit("no CUDA GPU here: name capabilities instead, such as 8.6")
    arch_list = torch.cuda.get_arch_list()
    print(f"torch {torch.__version__} has kernels for", *arch_list)
    for name, (major, minor) in gpus:
        fits = [arch for arch in arch_list if runs_on(arch, major, minor)]
        print(f"{name}:", *fits or ["none, this build cannot use it"])


# --8<-- [end:program]


if __name__ == "__main__":
    main()
