# s2sad golden file: golden/inputs/numpy_programs.py:logistic_loss, stage reverse, wrt w, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast


def logistic_loss_grad(w, b, X, y):
    z = X @ w + b
    t1 = -y
    t2 = np.exp(t1 * z)
    del z
    t3 = np.sum(np.log1p(t2))
    t4 = len(y)
    t5 = t3 / t4
    # line 11: return np.sum(np.log1p(np.exp(-y * z))) / len(y)
    t3_bar = 1.0 / t4
    z_bar = t3_bar / (1.0 + t2) * t2 * t1
    del t1, t2
    # line 10: z = X @ w + b
    b_bar = unbroadcast(z_bar, b)
    w_bar = z_bar @ X
    return w_bar, b_bar
