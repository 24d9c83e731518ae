# s2sad golden file: golden/inputs/numpy_programs.py:normalise, stage forward, wrt x, gain, bias.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def normalise_jvp(x, gain, bias, x_dot, gain_dot, bias_dot):
    mu = x.mean(axis=1, keepdims=True)
    mu_dot = np.mean(x_dot, axis=1, keepdims=True)
    t1 = x - mu
    t1_dot = x_dot - mu_dot
    var = (t1**2).mean(axis=1, keepdims=True)
    var_dot = np.mean(2 * t1 * t1_dot, axis=1, keepdims=True)
    t2 = np.sqrt(var + 1e-05)
    y = t1 / t2
    y_dot = t1_dot / t2 - y * (var_dot / (2.0 * t2)) / t2
    t3 = y * gain + bias
    t4 = np.sum(t3**2)
    t4_dot = np.sum(2 * t3 * (y_dot * gain + y * gain_dot + bias_dot))
    return t4, t4_dot
