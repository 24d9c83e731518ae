# s2sad golden file: golden/inputs/math_calls.py:exp_log, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math
from math import exp, log, sqrt


def exp_log_jvp(x, y, x_dot, y_dot):
    t1 = -x
    t2 = exp(t1 * y)
    t2_dot = t2 * (t1 * y_dot - x_dot * y)
    t3 = log(x)
    t4 = math.log1p(y)
    t5 = t2 + t3 * t4
    t5_dot = t2_dot + (x_dot / x * t4 + t3 * (y_dot / (1.0 + y)))
    t6 = sqrt(x * y)
    t7 = t5 + t6
    t7_dot = t5_dot + (x_dot * y + x * y_dot) / (2.0 * t6)
    return t7, t7_dot
