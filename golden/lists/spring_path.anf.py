# s2sad golden file: golden/inputs/lists.py:spring_path, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def spring_path(x, n):
    path_0 = []
    path_1 = []
    p = x
    v = 0.0
    v_1 = v
    p_1 = p
    for _ in range(n):
        t1 = math.sin(p_1)
        t2 = 0.1 * t1
        v_2 = v_1 - t2
        t3 = 0.1 * v_2
        p_2 = p_1 + t3
        path_0.append(p_2)
        path_1.append(v_2)
        v_1 = v_2
        p_1 = p_2
    energy = 0
    t4 = len(path_0)
    t5 = len(path_1)
    t6 = min(t4, t5)
    energy_1 = energy
    for t7 in range(t6):
        q = path_0[t7]
        w = path_1[t7]
        t8 = q * q
        t9 = w * w
        t10 = t8 + t9
        energy_2 = energy_1 + t10
        energy_1 = energy_2
    t11 = path_0[-1]
    t12 = len(path_0)
    t13 = t11 * t12
    t14 = energy_1 + t13
    return t14
