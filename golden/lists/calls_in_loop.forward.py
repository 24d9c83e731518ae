# s2sad golden file: golden/inputs/lists.py:calls_in_loop, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def calls_in_loop_jvp(x, n, x_dot):
    s = x
    s_1 = s
    s_1_dot = x_dot
    for i in range(n):
        s_2, s_2_dot = step_jvp(s_1_dot, x_dot, s_1, x)
        s_1 = s_2
        s_1_dot = s_2_dot
    return s_1, s_1_dot


def step_jvp(s_dot, x_dot, s, x):
    if s > 0.5:
        t1 = s * x
        t1_dot = s_dot * x + s * x_dot
        t2 = math.cos(s)
        t2_dot = -math.sin(s) * s_dot
        result = t1 - t2
        result_dot = t1_dot - t2_dot
    else:
        t3 = x * x
        t3_dot = x_dot * x + x * x_dot
        result = s + t3
        result_dot = s_dot + t3_dot
    return result, result_dot
