# s2sad golden file: golden/inputs/lists.py:spring_path, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def spring_path_grad(x, n):
    tape_1 = []
    tape_2 = []
    path_0 = []
    path_1 = []
    p = x
    v = 0.0
    v_1 = v
    p_1 = p
    for _ in range(n):
        v_2 = v_1 - 0.1 * math.sin(p_1)
        p_2 = p_1 + 0.1 * v_2
        path_0.append(p_2)
        path_1.append(v_2)
        tape_1.append(p_1)
        v_1 = v_2
        p_1 = p_2
    t1 = len(path_0)
    t2 = len(path_1)
    t3 = min(t1, t2)
    for t4 in range(t3):
        q = path_0[t4]
        w = path_1[t4]
        tape_2.append(q)
        tape_2.append(w)
    t5 = path_0[-1]
    t6 = len(path_0)
    # line 48: return energy + path[-1][0] * len(path)
    t7_bar = 1.0
    path_0_bar = [0.0] * len(path_0)
    path_1_bar = [0.0] * len(path_1)
    t5_bar = t7_bar * t6
    path_0_bar[-1] += t5_bar
    # line 47: energy = sum(q * q + w * w for q, w in path)
    for t4 in reversed(range(t3)):
        w = tape_2.pop()
        q = tape_2.pop()
        w_a_bar = w
        w_b_bar = w
        q_a_bar = q
        q_b_bar = q
        w_bar = w_a_bar + w_b_bar
        path_1_bar[t4] += w_bar
        q_bar = q_a_bar + q_b_bar
        path_0_bar[t4] += q_bar
    # line 43: for _ in range(n):
    v_1_bar = 0.0
    p_1_bar = 0.0
    for _ in reversed(range(n)):
        p_1 = tape_1.pop()
        # line 46: path.append((p, v))
        p_2_b_bar = p_1_bar
        v_2_c_bar = v_1_bar
        v_2_b_bar = path_1_bar.pop()
        p_2_a_bar = path_0_bar.pop()
        # line 45: p = p + 0.1 * v
        p_2_bar = p_2_a_bar + p_2_b_bar
        v_2_a_bar = p_2_bar * 0.1
        # line 44: v = v - 0.1 * math.sin(p)
        v_2_bar = v_2_a_bar + v_2_b_bar + v_2_c_bar
        v_1_bar = v_2_bar
        # adjoint of p_1: the sum over its uses
        p_1_bar = p_2_bar - v_2_bar * 0.1 * math.cos(p_1)
    x_bar = p_1_bar
    return x_bar
