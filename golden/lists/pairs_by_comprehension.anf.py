# s2sad golden file: golden/inputs/lists.py:pairs_by_comprehension, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def pairs_by_comprehension(x, n):
    pts_0 = []
    pts_1 = []
    for i_pts0 in range(n):
        t1 = i_pts0 != 1
        if t1:
            t2 = x * i_pts0
            pts_0.append(t2)
            t3 = x * i_pts0
            t4 = math.cos(t3)
            pts_1.append(t4)
    total = 0.0
    t5 = len(pts_0)
    t6 = len(pts_1)
    t7 = min(t5, t6)
    total_1 = total
    for t8 in range(t7):
        i = t8
        a = pts_0[t8]
        b = pts_1[t8]
        t9 = i * a
        t10 = t9 * b
        total_2 = total_1 + t10
        total_1 = total_2
    return total_1
