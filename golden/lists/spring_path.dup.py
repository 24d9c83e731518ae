# s2sad golden file: golden/inputs/lists.py:spring_path, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def spring_path(x, n):
    path_0 = []
    path_0_a, path_0_b, path_0_c, path_0_d, path_0_e = dup(path_0, 5)
    path_1 = []
    path_1_a, path_1_b, path_1_c = dup(path_1, 3)
    p = x
    v = 0.0
    v_1 = v
    p_1 = p
    for _ in range(n):
        p_1_a, p_1_b = dup(p_1)
        t1 = math.sin(p_1_a)
        t2 = 0.1 * t1
        v_2 = v_1 - t2
        v_2_a, v_2_b, v_2_c = dup(v_2, 3)
        t3 = 0.1 * v_2_a
        p_2 = p_1_b + t3
        p_2_a, p_2_b = dup(p_2)
        path_0_a.append(p_2_a)
        path_1_a.append(v_2_b)
        v_1 = v_2_c
        p_1 = p_2_b
    energy = 0
    t4 = len(path_0_b)
    t5 = len(path_1_b)
    t6 = min(t4, t5)
    energy_1 = energy
    for t7 in range(t6):
        t7_a, t7_b = dup(t7)
        q = path_0_c[t7_a]
        q_a, q_b = dup(q)
        w = path_1_c[t7_b]
        w_a, w_b = dup(w)
        t8 = q_a * q_b
        t9 = w_a * w_b
        t10 = t8 + t9
        energy_2 = energy_1 + t10
        energy_1 = energy_2
    t11 = path_0_d[-1]
    t12 = len(path_0_e)
    t13 = t11 * t12
    t14 = energy_1 + t13
    return t14
