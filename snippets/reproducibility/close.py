import torch

expected = torch.tensor([1.0, 2.0, 3.0])
actual = torch.tensor([1.0, 2.001, 3.0])
try:
    # the default tolerances for float32: rtol=1.3e-6, atol=1e-5
    torch.testing.assert_close(actual, expected)
except AssertionError as error:
    print(error)

# a tolerance chosen for the comparison: 0.1 %, or 1e-5 near zero
torch.testing.assert_close(actual, expected, rtol=1e-3, atol=1e-5)
print("close within rtol=1e-3")
