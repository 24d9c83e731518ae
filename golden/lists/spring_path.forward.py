# s2sad golden file: golden/inputs/lists.py:spring_path, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def spring_path_jvp(x, n, x_dot):
    path_0 = []
    path_0_dot = [0.0] * len(path_0)
    path_1 = []
    path_1_dot = [0.0] * len(path_1)
    p = x
    v = 0.0
    v_1 = v
    p_1 = p
    v_1_dot = 0.0
    p_1_dot = x_dot
    for _ in range(n):
        v_1 = v_1 - 0.1 * math.sin(p_1)
        v_1_dot = v_1_dot - 0.1 * (math.cos(p_1) * p_1_dot)
        p_1 = p_1 + 0.1 * v_1
        p_1_dot = p_1_dot + 0.1 * v_1_dot
        path_0.append(p_1)
        path_0_dot.append(p_1_dot)
        path_1.append(v_1)
        path_1_dot.append(v_1_dot)
    energy = 0
    t1 = len(path_0)
    t2 = len(path_1)
    t3 = min(t1, t2)
    energy_1 = energy
    energy_1_dot = 0.0
    for t4 in range(t3):
        q = path_0[t4]
        q_dot = path_0_dot[t4]
        w = path_1[t4]
        w_dot = path_1_dot[t4]
        energy_1 = energy_1 + (q * q + w * w)
        energy_1_dot = energy_1_dot + (2.0 * (q_dot * q) + 2.0 * (w_dot * w))
    t5 = path_0[-1]
    t6 = len(path_0)
    t7 = energy_1 + t5 * t6
    t7_dot = energy_1_dot + path_0_dot[-1] * t6
    return t7, t7_dot
