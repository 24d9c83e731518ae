# s2sad golden file: golden/inputs/math_calls.py:exp_log, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math
from math import exp, log, sqrt
from s2sad.runtime import dup


def exp_log(x, y):
    x_a, x_b, x_c = dup(x, 3)
    y_a, y_b, y_c = dup(y, 3)
    t1 = -x_a
    t2 = t1 * y_a
    t3 = exp(t2)
    t4 = log(x_b)
    t5 = math.log1p(y_b)
    t6 = t4 * t5
    t7 = t3 + t6
    t8 = x_c * y_c
    t9 = sqrt(t8)
    t10 = t7 + t9
    return t10
