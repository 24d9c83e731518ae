# s2sad golden file: golden/inputs/numpy_programs.py:running_max_pool, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def running_max_pool_jvp(x, x_dot):
    t1 = len(x)
    out = np.zeros(t1 - 1)
    out_dot = np.zeros_like(out)
    t2 = len(x)
    t3 = t2 - 1
    for i in range(t3):
        t4 = x[i]
        t5 = i + 1
        t6 = x[t5]
        t7_dot = (0.0 if t6 > t4 else x_dot[i]) + (x_dot[t5] if t6 > t4 else 0.0)
        out[i] = max(t4, t6)
        out_dot[i] = t7_dot
    t8 = out**2
    t8_dot = 2 * out * out_dot
    t9 = np.sum(t8)
    t9_dot = np.sum(t8_dot)
    return t9, t9_dot
