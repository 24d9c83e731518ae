# s2sad golden file: golden/inputs/numpy_programs.py:logistic_loss, stage dup, wrt w, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import dup


def logistic_loss(w, b, X, y):
    y_a, y_b = dup(y)
    t1 = X @ w
    z = t1 + b
    t2 = -y_a
    t3 = t2 * z
    t4 = np.exp(t3)
    t5 = np.log1p(t4)
    t6 = np.sum(t5)
    t7 = len(y_b)
    t8 = t6 / t7
    return t8
