# s2sad golden file: golden/inputs/conditionals.py:safe_sqrt, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403

import math


def safe_sqrt_grad(x, y):
    t1 = x > 0
    if t1:
        s = math.sqrt(x)
    else:
        s = 0.0
    # line 12: return s * y
    s_bar = y
    y_bar = s
    # line 11: s = math.sqrt(x) if x > 0 else 0.0
    if t1:
        x_bar = s_bar / (2.0 * s)
    else:
        x_bar = 0.0
    return x_bar, y_bar
