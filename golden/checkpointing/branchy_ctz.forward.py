# s2sad golden file: golden/inputs/checkpointing.py:branchy_ctz, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403

import math


def branchy_ctz_jvp(x, y, n, x_dot, y_dot):
    s = x
    s_1 = s
    s_1_dot = x_dot
    for i in range(n):
        if i % 2 == 0:
            s_2 = s_1 * y
            s_2_dot = s_1_dot * y + s_1 * y_dot
        else:
            s_2 = math.sin(s_1) + y
            s_2_dot = math.cos(s_1) * s_1_dot + y_dot
        s_1 = s_2
        s_1_dot = s_2_dot
    return s_1, s_1_dot
