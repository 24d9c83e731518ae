# s2sad golden file: golden/inputs/numpy_programs.py:heat, stage forward, wrt u0, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def heat_jvp(u0, c, u0_dot, c_dot):
    u = u0.copy()
    u_dot = np.array(u0_dot)
    u_1 = u
    u_1_dot = u_dot
    for _ in range(4):
        un = u_1.copy()
        un_dot = np.array(u_1_dot)
        t1 = len(u_1)
        t2 = t1 - 1
        for i in range(1, t2):
            t3 = u_1[i]
            t3_dot = u_1_dot[i]
            t4 = i + 1
            t5 = u_1[t4]
            t5_dot = u_1_dot[t4]
            t6 = u_1[i]
            t6_dot = u_1_dot[i]
            t7 = 2.0 * t6
            t7_dot = 2.0 * t6_dot
            t8 = t5 - t7
            t8_dot = t5_dot - t7_dot
            t9 = i - 1
            t10 = u_1[t9]
            t10_dot = u_1_dot[t9]
            t11 = t8 + t10
            t11_dot = t8_dot + t10_dot
            t12 = c * t11
            t12_dot = c_dot * t11 + c * t11_dot
            t13 = t3 + t12
            t13_dot = t3_dot + t12_dot
            un[i] = t13
            un_dot[i] = t13_dot
        u_2 = un
        u_1 = u_2
        u_1_dot = un_dot
    t14 = u_1 * u_1
    t14_dot = 2.0 * (u_1_dot * u_1)
    t15 = np.sum(t14)
    t15_dot = np.sum(t14_dot)
    return t15, t15_dot
