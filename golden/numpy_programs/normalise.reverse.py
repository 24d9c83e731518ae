# s2sad golden file: golden/inputs/numpy_programs.py:normalise, stage reverse, wrt x, gain, bias.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast, unreduce


def normalise_grad(x, gain, bias):
    mu = x.mean(axis=1, keepdims=True)
    t1 = x - mu
    t2 = t1**2
    var = t2.mean(axis=1, keepdims=True)
    t3 = var + 1e-05
    t4 = np.sqrt(t3)
    y = t1 / t4
    t5 = y * gain
    t6 = t5 + bias
    # line 23: return np.sum((y * gain + bias) ** 2)
    t7_bar = 1.0
    t6_bar = unreduce(t7_bar, t6, None, False) * 2 * t6
    t5_bar = unbroadcast(t6_bar, t5)
    bias_bar = unbroadcast(t6_bar, bias)
    y_bar = unbroadcast(t5_bar * gain, x)
    gain_bar = unbroadcast(t5_bar * y, gain)
    # line 22: y = (x - mu) / np.sqrt(var + 1e-5)
    t8_bar = y_bar / t4
    t3_bar = unbroadcast(-y_bar * y / t4, t4) / (2.0 * t4)
    mu_b_bar = unbroadcast(-t8_bar, mu)
    # line 21: var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    t1_bar = unreduce(t3_bar, x, 1, True) * (np.size(var) / np.size(t2)) * 2 * t1
    mu_a_bar = unbroadcast(-t1_bar, mu)
    # line 20: mu = x.mean(axis=1, keepdims=True)
    x_a_bar = unreduce(mu_a_bar + mu_b_bar, x, 1, True) * (np.size(mu) / np.size(x))
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + t1_bar + t8_bar
    return x_bar, gain_bar, bias_bar
