# s2sad golden file: golden/inputs/numpy_programs.py:normalise, stage dup, wrt x, gain, bias.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import dup


def normalise(x, gain, bias):
    x_a, x_b, x_c = dup(x, 3)
    mu = x_a.mean(axis=1, keepdims=True)
    mu_a, mu_b = dup(mu)
    t1 = x_b - mu_a
    t2 = t1**2
    var = t2.mean(axis=1, keepdims=True)
    t3 = x_c - mu_b
    t4 = var + 1e-05
    t5 = np.sqrt(t4)
    y = t3 / t5
    t6 = y * gain
    t7 = t6 + bias
    t8 = t7**2
    t9 = np.sum(t8)
    return t9
