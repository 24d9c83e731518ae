# s2sad golden file: golden/inputs/functions.py:closure, stage reverse, wrt x, w.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast


def closure_grad(x, w):
    t1 = np.tanh(x * 2.0)
    t2 = np.tanh(t1 * w)
    # line 14: return np.sum(act(h))
    t3_bar = 1.0
    w_b_bar = unbroadcast(t3_bar * t2, w)
    h_bar = t3_bar * w * (1.0 - t2 * t2)
    del t2
    # line 13: h = act(x * 2.0)
    w_a_bar = unbroadcast(h_bar * t1, w)
    x_bar = h_bar * w * (1.0 - t1 * t1) * 2.0
    del t1, h_bar
    # adjoint of w: the sum over its uses
    w_bar = w_a_bar + w_b_bar
    return x_bar, w_bar
