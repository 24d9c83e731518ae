# s2sad golden file: golden/inputs/functions.py:closure, stage dup, wrt x, w.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import dup


def closure(x, w):
    w_a, w_b = dup(w)
    t1 = x * 2.0
    t2 = np.tanh(t1)
    h = t2 * w_a
    t3 = np.tanh(h)
    t4 = t3 * w_b
    t5 = np.sum(t4)
    return t5
