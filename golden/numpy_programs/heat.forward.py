# s2sad golden file: golden/inputs/numpy_programs.py:heat, stage forward, wrt u0, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def heat_jvp(u0, c, u0_dot, c_dot):
    u = u0.copy()
    u_dot = u0_dot.copy()
    u_1 = u
    u_1_dot = u_dot
    for _ in range(4):
        un = u_1.copy()
        un_dot = u_1_dot.copy()
        t1 = len(u_1)
        t2 = t1 - 1
        for i in range(1, t2):
            t3 = u_1[i]
            t3_dot = u_1_dot[i]
            t4 = i + 1
            t5 = u_1[t4]
            t5_dot = u_1_dot[t4]
            t6 = t5 - 2.0 * u_1[i]
            t7 = i - 1
            t8 = t6 + u_1[t7]
            t9_dot = t3_dot + (
                c_dot * t8 + c * (t5_dot - 2.0 * u_1_dot[i] + u_1_dot[t7])
            )
            un[i] = t3 + c * t8
            un_dot[i] = t9_dot
        u_2 = un
        u_1 = u_2
        u_1_dot = un_dot
    t10 = np.sum(u_1 * u_1)
    t10_dot = np.sum(2.0 * (u_1_dot * u_1))
    return t10, t10_dot
