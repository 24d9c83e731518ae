# s2sad golden file: golden/inputs/loops.py:loop_sum, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

import math


def loop_sum_jvp(x, y, n, x_dot, y_dot):
    acc = 0.0
    acc_1 = acc
    acc_1_dot = 0.0
    for i in range(n):
        t1 = x * i
        t2 = math.sin(t1)
        acc_1 = acc_1 + t2 * y
        acc_1_dot = acc_1_dot + (math.cos(t1) * (x_dot * i) * y + t2 * y_dot)
    return acc_1, acc_1_dot
