# s2sad golden file: golden/inputs/loops.py:with_continue, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

import math


def with_continue_jvp(x, n, x_dot):
    s = 0.0
    s_1 = s
    s_1_dot = 0.0
    for i in range(n):
        if not i % 3 == 0:
            t1 = x * i
            s_2 = s_1 + math.sin(t1)
            s_2_dot = s_1_dot + math.cos(t1) * (x_dot * i)
            s_1 = s_2
            s_1_dot = s_2_dot
    return s_1, s_1_dot
