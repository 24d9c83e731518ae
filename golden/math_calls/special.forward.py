# s2sad golden file: golden/inputs/math_calls.py:special, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def special_jvp(x, x_dot):
    t1 = math.erf(x)
    t2 = math.hypot(x, 3.0)
    t3 = t1 + t2
    t3_dot = 1.1283791670955126 * math.exp(-x * x) * x_dot + x * x_dot / t2
    t4 = math.tanh(x)
    t5 = t3 + t4**2
    t5_dot = t3_dot + 2.0 * t4 * ((1.0 - t4 * t4) * x_dot)
    return t5, t5_dot
