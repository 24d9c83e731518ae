# s2sad golden file: golden/inputs/seeds.py:z, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403

import math


def z_grad(x, y):
    t1 = math.sin(x)
    # line 11: z = x * y + math.sin(x)
    x_b_bar = math.cos(x)
    x_a_bar = y
    y_bar = x
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + x_b_bar
    return x_bar, y_bar
