# s2sad golden file: golden/inputs/seeds.py:z, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403

import math


def z_jvp(x, y, x_dot, y_dot):
    t1 = x * y
    t1_dot = x_dot * y + x * y_dot
    t2 = math.sin(x)
    t2_dot = math.cos(x) * x_dot
    z = t1 + t2
    z_dot = t1_dot + t2_dot
    return z, z_dot
