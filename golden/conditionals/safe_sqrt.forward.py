# s2sad golden file: golden/inputs/conditionals.py:safe_sqrt, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403

import math


def safe_sqrt_jvp(x, y, x_dot, y_dot):
    if x > 0:
        s = math.sqrt(x)
        s_dot = x_dot / (2.0 * s)
    else:
        s = 0.0
        s_dot = 0.0
    t1 = s * y
    t1_dot = s_dot * y + s * y_dot
    return t1, t1_dot
