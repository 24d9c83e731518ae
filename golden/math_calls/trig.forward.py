# s2sad golden file: golden/inputs/math_calls.py:trig, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def trig_jvp(x, x_dot):
    t1 = math.sin(x)
    t2 = math.cos(x)
    t3 = t1 * t2
    t4 = math.tan(x)
    t5 = t3 + t4
    t6 = math.atan2(x, 2.0)
    f1 = 4.0 + x * x
    t7 = t5 + t6
    t7_dot = (
        math.cos(x) * x_dot * t2
        - t1 * (math.sin(x) * x_dot)
        + (1.0 + t4 * t4) * x_dot
        + 2.0 * x_dot / f1
    )
    return t7, t7_dot
