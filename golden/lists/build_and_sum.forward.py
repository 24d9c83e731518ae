# s2sad golden file: golden/inputs/lists.py:build_and_sum, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def build_and_sum_jvp(x, n, x_dot):
    ys = []
    ys_dot = [0.0] * len(ys)
    for i in range(n):
        t1 = x * i
        t1_dot = x_dot * i
        t2 = math.sin(t1)
        t2_dot = math.cos(t1) * t1_dot
        t3 = t2 + x
        t3_dot = t2_dot + x_dot
        ys.append(t3)
        ys_dot.append(t3_dot)
    t4 = sum(ys)
    t4_dot = sum(ys_dot)
    t5 = ys[0]
    t5_dot = ys_dot[0]
    t6 = ys[-1]
    t6_dot = ys_dot[-1]
    t7 = t5 * t6
    t7_dot = t5_dot * t6 + t5 * t6_dot
    t8 = t4 + t7
    t8_dot = t4_dot + t7_dot
    return t8, t8_dot
