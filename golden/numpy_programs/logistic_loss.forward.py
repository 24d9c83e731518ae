# s2sad golden file: golden/inputs/numpy_programs.py:logistic_loss, stage forward, wrt w, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def logistic_loss_jvp(w, b, X, y, w_dot, b_dot):
    z = X @ w + b
    z_dot = X @ w_dot + b_dot
    t1 = -y
    t2 = np.exp(t1 * z)
    t3 = np.sum(np.log1p(t2))
    t4 = len(y)
    t5 = t3 / t4
    t5_dot = np.sum(t2 * (t1 * z_dot) / (1.0 + t2)) / t4
    return t5, t5_dot
