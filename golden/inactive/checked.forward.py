# s2sad golden file: golden/inputs/inactive.py:checked, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403

import math


def checked_jvp(x, y, x_dot, y_dot):
    assert x > 0, f"x must be positive, got {x}"
    z = x * y
    z_dot = x_dot * y + x * y_dot
    if z > 1000000.0:
        raise ValueError(f"z = {z:.3g} is too large")
    t1 = math.log(x)
    t2 = t1 * z
    t2_dot = x_dot / x * z + t1 * z_dot
    return t2, t2_dot
