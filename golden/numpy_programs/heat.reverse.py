# s2sad golden file: golden/inputs/numpy_programs.py:heat, stage reverse, wrt u0, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.numpy_programs import *  # noqa: F401,F403

import numpy as np


def heat_grad(u0, c):
    tape_1 = []
    u = u0.copy()
    u_1 = u
    for _ in range(4):
        un = u_1.copy()
        t1 = len(u_1)
        t2 = t1 - 1
        for i in range(1, t2):
            t3 = u_1[i]
            t4 = u_1[i + 1]
            t5 = t4 - 2.0 * u_1[i]
            t6 = t3 + c * (t5 + u_1[i - 1])
            un[i] = t6
        u_2 = un
        tape_1.append(u_1)
        tape_1.append(un)
        tape_1.append(t2)
        u_1 = u_2
    del u
    # line 40: return np.sum(u * u)
    t7_bar = 1.0
    u_1_bar = np.zeros_like(u_1)
    u_1_bar += t7_bar * u_1
    u_1_bar += t7_bar * u_1
    del u_1
    # line 35: for _ in range(4):
    c_bar = 0.0
    for _ in reversed(range(4)):
        t2 = tape_1.pop()
        un = tape_1.pop()
        u_1 = tape_1.pop()
        un_bar = np.zeros_like(un)
        # line 39: u = un
        un_bar += u_1_bar
        u_1_bar = np.zeros_like(u_1_bar)
        # line 37: for i in range(1, len(u) - 1):
        for i in reversed(range(1, t2)):
            t8 = i + 1
            t4 = u_1[t8]
            t9 = u_1[i]
            t10 = 2.0 * t9
            t5 = t4 - t10
            t11 = i - 1
            t12 = u_1[t11]
            t13 = t5 + t12
            # line 38: un[i] = u[i] + c * (u[i + 1] - 2.0 * u[i] + u[i - 1])
            t6_bar = un_bar[i]
            un_bar[i] = 0.0
            c_bar += t6_bar * t13
            t13_bar = t6_bar * c
            u_1_bar[t11] += t13_bar
            u_1_bar[i] -= t13_bar * 2.0
            u_1_bar[t8] += t13_bar
            u_1_bar[i] += t6_bar
        # line 36: un = u.copy()
        u_1_bar += un_bar
    u0_bar = u_1_bar
    return u0_bar, c_bar
