# s2sad golden file: golden/inputs/math_calls.py:trig, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def trig(x):
    x_a, x_b, x_c, x_d = dup(x, 4)
    t1 = math.sin(x_a)
    t2 = math.cos(x_b)
    t3 = t1 * t2
    t4 = math.tan(x_c)
    t5 = t3 + t4
    t6 = math.atan2(x_d, 2.0)
    t7 = t5 + t6
    return t7
