# s2sad golden file: golden/inputs/numpy_programs.py:mlp_layer, stage anf, wrt W, b.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def mlp_layer(W, b, X, target):
    t1 = X @ W
    t2 = t1 + b
    h = np.tanh(t2)
    t3 = h - target
    t4 = t3**2
    t5 = np.sum(t4)
    t6 = 0.5 * t5
    return t6
