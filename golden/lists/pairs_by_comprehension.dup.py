# s2sad golden file: golden/inputs/lists.py:pairs_by_comprehension, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def pairs_by_comprehension(x, n):
    pts_0 = []
    pts_0_a, pts_0_b, pts_0_c = dup(pts_0, 3)
    pts_1 = []
    pts_1_a, pts_1_b, pts_1_c = dup(pts_1, 3)
    for i_pts0 in range(n):
        i_pts0_a, i_pts0_b = dup(i_pts0)
        t1 = i_pts0_a != 1
        if t1:
            x_a, x_b = dup(x)
            i_pts0_c, i_pts0_d = dup(i_pts0_b)
            t2 = x_a * i_pts0_c
            pts_0_a.append(t2)
            t3 = x_b * i_pts0_d
            t4 = math.cos(t3)
            pts_1_a.append(t4)
    total = 0.0
    t5 = len(pts_0_b)
    t6 = len(pts_1_b)
    t7 = min(t5, t6)
    total_1 = total
    for t8 in range(t7):
        t8_a, t8_b, t8_c = dup(t8, 3)
        i = t8_a
        a = pts_0_c[t8_b]
        b = pts_1_c[t8_c]
        t9 = i * a
        t10 = t9 * b
        total_2 = total_1 + t10
        total_1 = total_2
    return total_1
