# s2sad golden file: golden/inputs/numpy_programs.py:normalise, stage forward, wrt x, gain, bias.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def normalise_jvp(x, gain, bias, x_dot, gain_dot, bias_dot):
    mu = x.mean(axis=1, keepdims=True)
    mu_dot = np.mean(x_dot, axis=1, keepdims=True)
    t1 = x - mu
    t1_dot = x_dot - mu_dot
    t2 = t1**2
    t2_dot = 2 * t1 * t1_dot
    var = t2.mean(axis=1, keepdims=True)
    var_dot = np.mean(t2_dot, axis=1, keepdims=True)
    t3 = np.sqrt(var + 1e-05)
    t3_dot = var_dot / (2.0 * t3)
    y = t1 / t3
    y_dot = t1_dot / t3 - y * t3_dot / t3
    t4 = y * gain
    t4_dot = y_dot * gain + y * gain_dot
    t5 = t4 + bias
    t5_dot = t4_dot + bias_dot
    t6 = t5**2
    t6_dot = 2 * t5 * t5_dot
    t7 = np.sum(t6)
    t7_dot = np.sum(t6_dot)
    return t7, t7_dot
