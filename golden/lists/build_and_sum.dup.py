# s2sad golden file: golden/inputs/lists.py:build_and_sum, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def build_and_sum(x, n):
    ys = []
    ys_a, ys_b, ys_c, ys_d = dup(ys, 4)
    for i in range(n):
        x_a, x_b = dup(x)
        t1 = x_a * i
        t2 = math.sin(t1)
        t3 = t2 + x_b
        ys_a.append(t3)
    t4 = sum(ys_b)
    t5 = ys_c[0]
    t6 = ys_d[-1]
    t7 = t5 * t6
    t8 = t4 + t7
    return t8
