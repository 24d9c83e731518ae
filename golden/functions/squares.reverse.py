# s2sad golden file: golden/inputs/functions.py:squares, stage reverse, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import numpy as np


def squares_grad(x):
    t1 = len(x)
    # line 19: return sum(sq(x[i]) for i in range(len(x)))
    x_bar = np.zeros_like(x)
    for i in reversed(range(t1)):
        t2 = x[i]
        t2_bar = t2
        t3_bar = t2
        x_bar[i] += t3_bar + t2_bar
    return x_bar
