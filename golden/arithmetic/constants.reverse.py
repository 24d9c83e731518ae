# s2sad golden file: golden/inputs/arithmetic.py:constants, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

import math


def constants_grad(x):
    t1 = math.pi * x
    t2 = t1 * x + 0.001 * x - math.e
    # line 21: return math.pi * x * x + 1e-3 * x - math.e
    x_c_bar = 0.001
    t1_bar = x
    x_b_bar = t1
    x_a_bar = t1_bar * math.pi
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + x_b_bar + x_c_bar
    return x_bar
