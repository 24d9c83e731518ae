# s2sad golden file: golden/inputs/math_calls.py:trig, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def trig_grad(x):
    t1 = math.sin(x)
    t2 = math.cos(x)
    t3 = math.tan(x)
    # line 8: return math.sin(x) * math.cos(x) + math.tan(x) + math.atan2(x, 2.0)
    r1 = 4.0 + x * x
    x_d_bar = 2.0 / r1
    x_c_bar = 1.0 + t3 * t3
    t1_bar = t2
    t2_bar = t1
    x_a_bar = t1_bar * math.cos(x)
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar - t2_bar * math.sin(x) + x_c_bar + x_d_bar
    return x_bar
