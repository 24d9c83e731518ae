# s2sad golden file: golden/inputs/numpy_programs.py:running_max_pool, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import unreduce


def running_max_pool_grad(x):
    t1 = len(x)
    out = np.zeros(t1 - 1)
    t2 = len(x)
    t3 = t2 - 1
    for i in range(t3):
        t4 = x[i]
        t5 = i + 1
        t6 = x[t5]
        t7 = max(t4, t6)
        out[i] = t7
    # line 47: return np.sum(out ** 2)
    t8_bar = 1.0
    x_bar = np.zeros_like(x)
    out_bar = np.zeros_like(out)
    out_bar += t8_bar * 2.0 * out
    # line 45: for i in range(len(x) - 1):
    for i in reversed(range(t3)):
        t4 = x[i]
        t5 = i + 1
        t6 = x[t5]
        # line 46: out[i] = max(x[i], x[i + 1])
        t7_bar = out_bar[i]
        out_bar[i] = 0.0
        t4_bar = 0.0 if t6 > t4 else t7_bar
        t6_bar = t7_bar if t6 > t4 else 0.0
        x_bar[t5] += t6_bar
        x_bar[i] += t4_bar
    return x_bar
