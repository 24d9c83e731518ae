# s2sad golden file: golden/inputs/tuples_and_calls.py:from_polar, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403

import math


def from_polar_jvp(x, y, x_dot, y_dot):
    t1, t1_dot = polar_jvp(x_dot, y_dot, x, y)
    r, theta = t1
    r_dot, theta_dot = t1_dot
    t2 = math.cos(theta)
    t3 = r * t2 + r * theta
    t3_dot = (
        r_dot * t2 - r * (math.sin(theta) * theta_dot) + (r_dot * theta + r * theta_dot)
    )
    return t3, t3_dot


def polar_jvp(x_dot, y_dot, x, y):
    t1 = math.hypot(x, y)
    t2 = math.atan2(y, x)
    f1 = x * x + y * y
    t3 = (t1, t2)
    t3_dot = (x * x_dot / t1 + y * y_dot / t1, x * y_dot / f1 - y * x_dot / f1)
    return t3, t3_dot
