# s2sad golden file: golden/inputs/numpy_programs.py:logistic_loss, stage reverse, wrt w, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast, unreduce


def logistic_loss_grad(w, b, X, y):
    t1 = X @ w
    z = t1 + b
    t2 = -y
    t3 = np.exp(t2 * z)
    t4 = np.sum(np.log1p(t3))
    t5 = len(y)
    t6 = t4 / t5
    # line 11: return np.sum(np.log1p(np.exp(-y * z))) / len(y)
    t4_bar = 1.0 / t5
    z_bar = unbroadcast(t4_bar / (1.0 + t3) * t3 * t2, t1)
    # line 10: z = X @ w + b
    b_bar = unbroadcast(z_bar, b)
    w_bar = z_bar @ X
    return w_bar, b_bar
