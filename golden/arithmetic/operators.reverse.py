# s2sad golden file: golden/inputs/arithmetic.py:operators, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

import math


def operators_grad(x, y):
    a = x + y
    b = x - y
    d = x / y
    e = x**y
    f = x * 4.0 // y
    # line 13: return a * b + c - d + e - f
    a_bar = b
    b_bar = a
    # line 11: e = x**y
    x_e_bar = y * x ** (y - 1) if y else y / (x if x else 1.0)
    y_e_bar = e * math.log(x) if x > 0 else 0.0 if x == 0 else e * math.nan
    # line 10: d = x / y
    x_d_bar = -1.0 / y
    y_d_bar = d / y
    # line 9: c = x * y
    x_c_bar = y
    y_c_bar = x
    # adjoint of y: the sum over its uses
    y_bar = a_bar - b_bar + y_c_bar + y_d_bar + y_e_bar
    x_bar = a_bar + b_bar + x_c_bar + x_d_bar + x_e_bar
    return x_bar, y_bar
