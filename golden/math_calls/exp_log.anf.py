# s2sad golden file: golden/inputs/math_calls.py:exp_log, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math
from math import exp, log, sqrt


def exp_log(x, y):
    t1 = -x
    t2 = t1 * y
    t3 = exp(t2)
    t4 = log(x)
    t5 = math.log1p(y)
    t6 = t4 * t5
    t7 = t3 + t6
    t8 = x * y
    t9 = sqrt(t8)
    t10 = t7 + t9
    return t10
