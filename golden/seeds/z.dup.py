# s2sad golden file: golden/inputs/seeds.py:z, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def z(x, y):
    x_a, x_b = dup(x)
    t1 = x_a * y
    t2 = math.sin(x_b)
    z = t1 + t2
    return z
