# s2sad golden file: golden/inputs/numpy_programs.py:logistic_loss, stage anf, wrt w, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def logistic_loss(w, b, X, y):
    t1 = X @ w
    z = t1 + b
    t2 = -y
    t3 = t2 * z
    t4 = np.exp(t3)
    t5 = np.log1p(t4)
    t6 = np.sum(t5)
    t7 = len(y)
    t8 = t6 / t7
    return t8
