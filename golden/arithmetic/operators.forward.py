# s2sad golden file: golden/inputs/arithmetic.py:operators, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

import math


def operators_jvp(x, y, x_dot, y_dot):
    a = x + y
    a_dot = x_dot + y_dot
    b = x - y
    b_dot = x_dot - y_dot
    c = x * y
    c_dot = x_dot * y + x * y_dot
    d = x / y
    d_dot = x_dot / y - d * y_dot / y
    e = x**y
    e_dot = (y * x ** (y - 1) * x_dot if y else y / (x if x else 1.0) * x_dot) + (
        e * math.log(x) * y_dot if x > 0 else 0.0 if x == 0 or not y_dot else math.nan
    )
    f = x * 4.0 // y
    t1_dot = a_dot * b + a * b_dot + c_dot - d_dot + e_dot
    t2 = a * b + c - d + e - f
    return t2, t1_dot
