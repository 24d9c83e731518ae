# s2sad golden file: golden/inputs/inactive.py:checked, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def checked(x, y):
    x_a, x_b, x_c, x_d = dup(x, 4)
    assert x_a > 0, f"x must be positive, got {x_b}"
    z = x_c * y
    z_a, z_b, z_c = dup(z, 3)
    t1 = z_a > 1000000.0
    if t1:
        raise ValueError(f"z = {z_b:.3g} is too large")
    t2 = math.log(x_d)
    t3 = t2 * z_c
    return t3
