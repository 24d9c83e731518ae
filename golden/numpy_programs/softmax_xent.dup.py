# s2sad golden file: golden/inputs/numpy_programs.py:softmax_xent, stage dup, wrt W.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import dup


def softmax_xent(W, X, onehot):
    X_a, X_b = dup(X)
    z = X_a @ W
    z_a, z_b = dup(z)
    t1 = np.max(z_a, axis=1, keepdims=True)
    z_1 = z_b - t1
    z_1_a, z_1_b = dup(z_1)
    t2 = np.exp(z_1_a)
    t3 = np.sum(t2, axis=1, keepdims=True)
    t4 = np.log(t3)
    logp = z_1_b - t4
    t5 = onehot * logp
    t6 = np.sum(t5)
    t7 = -t6
    t8 = X_b.shape
    t9 = t8[0]
    t10 = t7 / t9
    return t10
