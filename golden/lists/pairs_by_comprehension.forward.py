# s2sad golden file: golden/inputs/lists.py:pairs_by_comprehension, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def pairs_by_comprehension_jvp(x, n, x_dot):
    pts_0 = []
    pts_0_dot = [0.0] * len(pts_0)
    pts_1 = []
    pts_1_dot = [0.0] * len(pts_1)
    for i_pts0 in range(n):
        if i_pts0 != 1:
            t1 = x * i_pts0
            t1_dot = x_dot * i_pts0
            pts_0.append(t1)
            pts_0_dot.append(t1_dot)
            t2_dot = -math.sin(t1) * t1_dot
            pts_1.append(math.cos(t1))
            pts_1_dot.append(t2_dot)
    total = 0.0
    t3 = len(pts_0)
    t4 = len(pts_1)
    t5 = min(t3, t4)
    total_1 = total
    total_1_dot = 0.0
    for t6 in range(t5):
        i = t6
        a = pts_0[t6]
        a_dot = pts_0_dot[t6]
        b = pts_1[t6]
        b_dot = pts_1_dot[t6]
        t7 = i * a
        total_1 = total_1 + t7 * b
        total_1_dot = total_1_dot + (i * a_dot * b + t7 * b_dot)
    return total_1, total_1_dot
