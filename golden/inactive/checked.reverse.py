# s2sad golden file: golden/inputs/inactive.py:checked, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403

import math


def checked_grad(x, y):
    assert x > 0, f"x must be positive, got {x}"
    z = x * y
    if z > 1000000.0:
        raise ValueError(f"z = {z:.3g} is too large")
    t1 = math.log(x)
    # line 13: return math.log(x) * z
    t1_bar = z
    z_c_bar = t1
    x_d_bar = t1_bar / x
    # line 10: z = x * y
    x_c_bar = z_c_bar * y
    y_bar = z_c_bar * x
    # adjoint of x: the sum over its uses
    x_bar = x_c_bar + x_d_bar
    return x_bar, y_bar
