# s2sad golden file: golden/inputs/numpy_programs.py:mlp_layer, stage reverse, wrt W, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast


def mlp_layer_grad(W, b, X, target):
    t1 = X @ W + b
    h = np.tanh(t1)
    t2 = h - target
    # line 16: return 0.5 * np.sum((h - target) ** 2)
    t3_bar = 0.5
    t2_bar = t3_bar * 2.0 * t2
    # line 15: h = np.tanh(X @ W + b)
    t1_bar = t2_bar * (1.0 - h * h)
    b_bar = unbroadcast(t1_bar, b)
    W_bar = X.T @ t1_bar
    return W_bar, b_bar
