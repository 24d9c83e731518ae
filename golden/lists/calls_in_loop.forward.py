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
        result = s * x - math.cos(s)
        result_dot = s_dot * x + s * x_dot + math.sin(s) * s_dot
    else:
        result = s + x * x
        result_dot = s_dot + 2.0 * (x_dot * x)
    return result, result_dot
