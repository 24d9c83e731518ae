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
    e_dot = y * x ** (y - 1) * x_dot + (e * math.log(x) * y_dot if x else 0.0)
    f = x * 4.0 // y
    t1 = a * b
    t1_dot = a_dot * b + a * b_dot
    t2 = t1 + c
    t2_dot = t1_dot + c_dot
    t3 = t2 - d
    t3_dot = t2_dot - d_dot
    t4 = t3 + e
    t4_dot = t3_dot + e_dot
    t5 = t4 - f
    return t5, t4_dot
