# s2sad golden file: golden/inputs/math_calls.py:special, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def special_jvp(x, x_dot):
    t1 = math.erf(x)
    t1_dot = 1.1283791670955126 * math.exp(-x * x) * x_dot
    t2 = math.hypot(x, 3.0)
    t2_dot = x * x_dot / t2
    t3 = t1 + t2
    t3_dot = t1_dot + t2_dot
    t4 = math.tanh(x)
    t4_dot = (1.0 - t4 * t4) * x_dot
    t5 = t4**2
    t5_dot = 2.0 * t4 * t4_dot
    t6 = t3 + t5
    t6_dot = t3_dot + t5_dot
    return t6, t6_dot
