# s2sad golden file: golden/inputs/numpy_programs.py:mlp_layer, stage forward, wrt W, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def mlp_layer_jvp(W, b, X, target, W_dot, b_dot):
    h = np.tanh(X @ W + b)
    h_dot = (1.0 - h * h) * (X @ W_dot + b_dot)
    t1 = h - target
    t2 = 0.5 * np.sum(t1**2)
    t2_dot = 0.5 * np.sum(2 * t1 * h_dot)
    return t2, t2_dot
