# s2sad golden file: golden/inputs/numpy_programs.py:heat, stage dup, wrt u0, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np
from s2sad.runtime import dup


def heat(u0, c):
    u = u0.copy()
    u_1 = u
    for _ in range(4):
        u_1_c, u_1_d, u_1_e = dup(u_1, 3)
        un = u_1_c.copy()
        un_a, un_b = dup(un)
        t1 = len(u_1_d)
        t2 = t1 - 1
        for i in range(1, t2):
            i_a, i_b, i_c, i_d, i_e = dup(i, 5)
            u_1_f, u_1_g, u_1_h, u_1_i = dup(u_1_e, 4)
            t3 = u_1_f[i_a]
            t4 = i_b + 1
            t5 = u_1_g[t4]
            t6 = u_1_h[i_c]
            t7 = 2.0 * t6
            t8 = t5 - t7
            t9 = i_d - 1
            t10 = u_1_i[t9]
            t11 = t8 + t10
            t12 = c * t11
            t13 = t3 + t12
            un_a[i_e] = t13
        u_2 = un_b
        u_1 = u_2
    u_1_a, u_1_b = dup(u_1)
    t14 = u_1_a * u_1_b
    t15 = np.sum(t14)
    return t15
