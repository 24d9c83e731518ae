# s2sad golden file: golden/inputs/math_calls.py:special, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def special_grad(x):
    t1 = math.hypot(x, 3.0)
    t2 = math.tanh(x)
    t3 = t2**2
    # line 16: return math.erf(x) + math.hypot(x, 3.0) + math.tanh(x) ** 2
    t2_bar = 2.0 * t2
    x_c_bar = t2_bar * (1.0 - t2 * t2)
    x_b_bar = x / t1
    x_a_bar = 1.1283791670955126 * math.exp(-x * x)
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + x_b_bar + x_c_bar
    return x_bar
