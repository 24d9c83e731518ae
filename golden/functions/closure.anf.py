# s2sad golden file: golden/inputs/functions.py:closure, stage anf, wrt x, w.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import numpy as np


def closure(x, w):
    t1 = x * 2.0
    t2 = np.tanh(t1)
    h = t2 * w
    t3 = np.tanh(h)
    t4 = t3 * w
    t5 = np.sum(t4)
    return t5
