# s2sad golden file: golden/inputs/numpy_programs.py:heat, stage anf, wrt u0, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def heat(u0, c):
    u = u0.copy()
    u_1 = u
    for _ in range(4):
        un = u_1.copy()
        t1 = len(u_1)
        t2 = t1 - 1
        for i in range(1, t2):
            t3 = u_1[i]
            t4 = i + 1
            t5 = u_1[t4]
            t6 = u_1[i]
            t7 = 2.0 * t6
            t8 = t5 - t7
            t9 = i - 1
            t10 = u_1[t9]
            t11 = t8 + t10
            t12 = c * t11
            t13 = t3 + t12
            un[i] = t13
        u_2 = un
        u_1 = u_2
    t14 = u_1 * u_1
    t15 = np.sum(t14)
    return t15
