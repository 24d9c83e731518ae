# s2sad golden file: golden/inputs/numpy_programs.py:mlp_layer, stage reverse, wrt W, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast, unreduce


def mlp_layer_grad(W, b, X, target):
    t1 = X @ W
    t2 = t1 + b
    h = np.tanh(t2)
    t3 = h - target
    # line 16: return 0.5 * np.sum((h - target) ** 2)
    t4_bar = 0.5
    h_bar = unbroadcast(t4_bar * 2.0 * t3, t2)
    # line 15: h = np.tanh(X @ W + b)
    t2_bar = h_bar * (1.0 - h * h)
    b_bar = unbroadcast(t2_bar, b)
    W_bar = X.T @ unbroadcast(t2_bar, t1)
    return W_bar, b_bar
