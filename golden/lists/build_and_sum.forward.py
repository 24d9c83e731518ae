# s2sad golden file: golden/inputs/lists.py:build_and_sum, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def build_and_sum_jvp(x, n, x_dot):
    ys = []
    ys_dot = [0.0] * len(ys)
    for i in range(n):
        t1 = x * i
        t2_dot = math.cos(t1) * (x_dot * i) + x_dot
        ys.append(math.sin(t1) + x)
        ys_dot.append(t2_dot)
    t3 = sum(ys)
    t3_dot = sum(ys_dot)
    t4 = ys[0]
    t5 = ys[-1]
    t6 = t3 + t4 * t5
    t6_dot = t3_dot + (ys_dot[0] * t5 + t4 * ys_dot[-1])
    return t6, t6_dot
