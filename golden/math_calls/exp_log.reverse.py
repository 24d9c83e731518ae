# s2sad golden file: golden/inputs/math_calls.py:exp_log, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math
from math import exp, log, sqrt


def exp_log_grad(x, y):
    t1 = -x
    t2 = t1 * y
    t3 = exp(t2)
    t4 = log(x)
    t5 = math.log1p(y)
    t6 = x * y
    t7 = sqrt(t6)
    # line 12: return exp(-x * y) + log(x) * math.log1p(y) + sqrt(x * y)
    t6_bar = 1.0 / (2.0 * t7)
    x_c_bar = t6_bar * y
    y_c_bar = t6_bar * x
    t4_bar = t5
    t5_bar = t4
    y_b_bar = t5_bar / (1.0 + y)
    x_b_bar = t4_bar / x
    t2_bar = t3
    t1_bar = t2_bar * y
    y_a_bar = t2_bar * t1
    # adjoint of y: the sum over its uses
    y_bar = y_a_bar + y_b_bar + y_c_bar
    x_bar = x_b_bar - t1_bar + x_c_bar
    return x_bar, y_bar
