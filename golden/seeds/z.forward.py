# s2sad golden file: golden/inputs/seeds.py:z, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403

import math


def z_jvp(x, y, x_dot, y_dot):
    z = x * y + math.sin(x)
    z_dot = x_dot * y + x * y_dot + math.cos(x) * x_dot
    return z, z_dot
