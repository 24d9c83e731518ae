# s2sad golden file: golden/inputs/numpy_programs.py:softmax_xent, stage anf, wrt W.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def softmax_xent(W, X, onehot):
    z = X @ W
    t1 = np.max(z, axis=1, keepdims=True)
    z_1 = z - t1
    t2 = np.exp(z_1)
    t3 = np.sum(t2, axis=1, keepdims=True)
    t4 = np.log(t3)
    logp = z_1 - t4
    t5 = onehot * logp
    t6 = np.sum(t5)
    t7 = -t6
    t8 = X.shape
    t9 = t8[0]
    t10 = t7 / t9
    return t10
