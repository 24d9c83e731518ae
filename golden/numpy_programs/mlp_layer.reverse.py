# s2sad golden file: golden/inputs/numpy_programs.py:mlp_layer, stage reverse, wrt W, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast


def mlp_layer_grad(W, b, X, target):
    h = np.tanh(X @ W + b)
    t1 = h - target
    # line 16: return 0.5 * np.sum((h - target) ** 2)
    t2_bar = 0.5
    t1_bar = t2_bar * 2.0 * t1
    del t1
    # line 15: h = np.tanh(X @ W + b)
    t3_bar = t1_bar * (1.0 - h * h)
    del h, t1_bar
    b_bar = unbroadcast(t3_bar, b)
    W_bar = X.T @ t3_bar
    return W_bar, b_bar
