# s2sad golden file: golden/inputs/numpy_programs.py:normalise, stage reverse, wrt x, gain, bias.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unbroadcast


def normalise_grad(x, gain, bias):
    mu = x.mean(axis=1, keepdims=True)
    t1 = x - mu
    var = (t1**2).mean(axis=1, keepdims=True)
    t2 = np.sqrt(var + 1e-05)
    y = t1 / t2
    t3 = y * gain + bias
    # line 23: return np.sum((y * gain + bias) ** 2)
    t4_bar = 1.0
    t3_bar = t4_bar * 2.0 * t3
    del t3
    bias_bar = unbroadcast(t3_bar, bias)
    y_bar = t3_bar * gain
    gain_bar = unbroadcast(t3_bar * y, gain)
    del t3_bar
    # line 22: y = (x - mu) / np.sqrt(var + 1e-5)
    t5_bar = y_bar / t2
    t6_bar = -(unbroadcast(y_bar * y, t2) / t2 / (2.0 * t2))
    del t2, y, y_bar
    # line 21: var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    t1_bar = t6_bar * (var.size / x.size) * 2 * t1
    del t1, var, t6_bar
    # adjoint of x: the sum over its uses
    x_bar = (
        t1_bar
        - (unbroadcast(t1_bar, mu) + unbroadcast(t5_bar, mu)) * (mu.size / x.size)
        + t5_bar
    )
    return x_bar, gain_bar, bias_bar
