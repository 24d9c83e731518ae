# s2sad golden file: golden/inputs/math_calls.py:trig, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def trig_jvp(x, x_dot):
    t1 = math.sin(x)
    t1_dot = math.cos(x) * x_dot
    t2 = math.cos(x)
    t3 = t1 * t2
    t3_dot = t1_dot * t2 - t1 * (math.sin(x) * x_dot)
    t4 = math.tan(x)
    t4_dot = (1.0 + t4 * t4) * x_dot
    t5 = t3 + t4
    t5_dot = t3_dot + t4_dot
    t6 = math.atan2(x, 2.0)
    f1 = 4.0 + x * x
    t6_dot = 2.0 * x_dot / f1
    t7 = t5 + t6
    t7_dot = t5_dot + t6_dot
    return t7, t7_dot
