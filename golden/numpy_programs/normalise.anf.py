# s2sad golden file: golden/inputs/numpy_programs.py:normalise, stage anf, wrt x, gain, bias.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def normalise(x, gain, bias):
    mu = x.mean(axis=1, keepdims=True)
    t1 = x - mu
    t2 = t1**2
    var = t2.mean(axis=1, keepdims=True)
    t3 = x - mu
    t4 = var + 1e-05
    t5 = np.sqrt(t4)
    y = t3 / t5
    t6 = y * gain
    t7 = t6 + bias
    t8 = t7**2
    t9 = np.sum(t8)
    return t9
