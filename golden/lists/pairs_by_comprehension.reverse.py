# s2sad golden file: golden/inputs/lists.py:pairs_by_comprehension, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def pairs_by_comprehension_grad(x, n):
    tape_1 = []
    tape_2 = []
    pts_0 = []
    pts_1 = []
    for i_pts0 in range(n):
        t1 = i_pts0 != 1
        if t1:
            t2 = x * i_pts0
            pts_0.append(t2)
            t3 = math.cos(t2)
            pts_1.append(t3)
        else:
            # not computed on this path
            t2 = None
        tape_1.append(t1)
        tape_1.append(t2)
    t4 = len(pts_0)
    t5 = len(pts_1)
    t6 = min(t4, t5)
    for t7 in range(t6):
        i = t7
        a = pts_0[t7]
        b = pts_1[t7]
        t8 = i * a
        tape_2.append(b)
        tape_2.append(t8)
    # line 56: return total
    pts_0_bar = [0.0] * len(pts_0)
    pts_1_bar = [0.0] * len(pts_1)
    # line 54: for i, (a, b) in enumerate(pts):
    for t7 in reversed(range(t6)):
        t8 = tape_2.pop()
        b = tape_2.pop()
        i = t7
        # line 55: total += i * a * b
        t8_bar = b
        b_bar = t8
        a_bar = t8_bar * i
        # line 54: for i, (a, b) in enumerate(pts):
        pts_1_bar[t7] += b_bar
        pts_0_bar[t7] += a_bar
    # line 52: pts = [(x * i, math.cos(x * i)) for i in range(n) if i != 1]
    x_bar = 0.0
    for i_pts0 in reversed(range(n)):
        t2 = tape_1.pop()
        t1 = tape_1.pop()
        if t1:
            t3_bar = pts_1_bar.pop()
            t2_bar = pts_0_bar.pop()
            x_a_bar = t2_bar * i_pts0
            # adjoint of x: the sum over its uses
            x_bar += x_a_bar - t3_bar * math.sin(t2) * i_pts0
    return x_bar
