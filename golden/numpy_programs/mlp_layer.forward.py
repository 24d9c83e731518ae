# s2sad golden file: golden/inputs/numpy_programs.py:mlp_layer, stage forward, wrt W, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def mlp_layer_jvp(W, b, X, target, W_dot, b_dot):
    t1 = X @ W
    t1_dot = X @ W_dot
    t2 = t1 + b
    t2_dot = t1_dot + b_dot
    h = np.tanh(t2)
    h_dot = (1.0 - h * h) * t2_dot
    t3 = h - target
    t4 = t3**2
    t4_dot = 2 * t3 * h_dot
    t5 = np.sum(t4)
    t5_dot = np.sum(t4_dot)
    t6 = 0.5 * t5
    t6_dot = 0.5 * t5_dot
    return t6, t6_dot
