# s2sad golden file: golden/inputs/numpy_programs.py:logistic_loss, stage forward, wrt w, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def logistic_loss_jvp(w, b, X, y, w_dot, b_dot):
    t1 = X @ w
    t1_dot = X @ w_dot
    z = t1 + b
    z_dot = t1_dot + b_dot
    t2 = -y
    t3 = t2 * z
    t3_dot = t2 * z_dot
    t4 = np.exp(t3)
    t4_dot = t4 * t3_dot
    t5 = np.log1p(t4)
    t5_dot = t4_dot / (1.0 + t4)
    t6 = np.sum(t5)
    t6_dot = np.sum(t5_dot)
    t7 = len(y)
    t8 = t6 / t7
    t8_dot = t6_dot / t7
    return t8, t8_dot
