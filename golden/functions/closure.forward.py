# s2sad golden file: golden/inputs/functions.py:closure, stage forward, wrt x, w.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import numpy as np


def closure_jvp(x, w, x_dot, w_dot):
    t1 = np.tanh(x * 2.0)
    h = t1 * w
    h_dot = (1.0 - t1 * t1) * (x_dot * 2.0) * w + t1 * w_dot
    t2 = np.tanh(h)
    t3 = np.sum(t2 * w)
    t3_dot = np.sum((1.0 - t2 * t2) * h_dot * w + t2 * w_dot)
    return t3, t3_dot
