# s2sad golden file: golden/inputs/inactive.py:checked, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403

import math


def checked(x, y):
    assert x > 0, f"x must be positive, got {x}"
    z = x * y
    t1 = z > 1000000.0
    if t1:
        raise ValueError(f"z = {z:.3g} is too large")
    t2 = math.log(x)
    t3 = t2 * z
    return t3
