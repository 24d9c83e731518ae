# s2sad golden file: golden/inputs/functions.py:chosen, stage reverse, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import math
import numpy as np


def chosen_grad(x, smooth):
    if smooth:
        t1 = np.tanh(x)
    else:
        t1 = np.sin(x)
    t2 = math.exp(t1)
    if smooth:
        t3 = np.tanh(x)
    else:
        t3 = np.sin(x)
    t4 = math.cos(t3)
    # line 47: total += f(act(x))
    t3_bar = -math.sin(t3)
    if smooth:
        x_b_bar = t3_bar * (1.0 - t3 * t3)
    else:
        x_b_bar = t3_bar * np.cos(x)
    # line 47: total += f(act(x))
    t1_bar = t2
    if smooth:
        x_a_bar = t1_bar * (1.0 - t1 * t1)
    else:
        x_a_bar = t1_bar * np.cos(x)
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + x_b_bar
    return x_bar
