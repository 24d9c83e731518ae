# s2sad golden file: golden/inputs/numpy_programs.py:running_max_pool, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def running_max_pool_grad(x):
    t1 = len(x)
    out = np.zeros(t1 - 1)
    t2 = len(x)
    t3 = t2 - 1
    for i in range(t3):
        t4 = x[i]
        t5 = max(t4, x[i + 1])
        out[i] = t5
    # line 47: return np.sum(out ** 2)
    t6_bar = 1.0
    x_bar = np.zeros_like(x)
    out_bar = np.zeros_like(out)
    out_bar += t6_bar * 2.0 * out
    del out
    # line 45: for i in range(len(x) - 1):
    for i in reversed(range(t3)):
        t4 = x[i]
        t7 = i + 1
        t8 = x[t7]
        # line 46: out[i] = max(x[i], x[i + 1])
        t5_bar = out_bar[i]
        out_bar[i] = 0.0
        t4_bar = 0.0 if t8 > t4 else t5_bar
        t8_bar = t5_bar if t8 > t4 else 0.0
        x_bar[t7] += t8_bar
        x_bar[i] += t4_bar
    return x_bar
