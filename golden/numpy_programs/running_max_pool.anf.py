# s2sad golden file: golden/inputs/numpy_programs.py:running_max_pool, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def running_max_pool(x):
    t1 = len(x)
    t2 = t1 - 1
    out = np.zeros(t2)
    t3 = len(x)
    t4 = t3 - 1
    for i in range(t4):
        t5 = x[i]
        t6 = i + 1
        t7 = x[t6]
        t8 = max(t5, t7)
        out[i] = t8
    t9 = out**2
    t10 = np.sum(t9)
    return t10
