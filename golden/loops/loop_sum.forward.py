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
        t1_dot = x_dot * i
        t2 = math.sin(t1)
        t2_dot = math.cos(t1) * t1_dot
        t3 = t2 * y
        t3_dot = t2_dot * y + t2 * y_dot
        acc_2 = acc_1 + t3
        acc_2_dot = acc_1_dot + t3_dot
        acc_1 = acc_2
        acc_1_dot = acc_2_dot
    return acc_1, acc_1_dot
