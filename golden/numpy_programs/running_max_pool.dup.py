# s2sad golden file: golden/inputs/numpy_programs.py:running_max_pool, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import dup


def running_max_pool(x):
    x_a, x_b, x_c = dup(x, 3)
    t1 = len(x_a)
    t2 = t1 - 1
    out = np.zeros(t2)
    out_a, out_b = dup(out)
    t3 = len(x_b)
    t4 = t3 - 1
    for i in range(t4):
        i_a, i_b, i_c = dup(i, 3)
        x_d, x_e = dup(x_c)
        t5 = x_d[i_a]
        t6 = i_b + 1
        t7 = x_e[t6]
        t8 = max(t5, t7)
        out_a[i_c] = t8
    t9 = out_b**2
    t10 = np.sum(t9)
    return t10
