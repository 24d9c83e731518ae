# s2sad golden file: golden/inputs/lists.py:build_and_sum, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def build_and_sum(x, n):
    ys = []
    for i in range(n):
        t1 = x * i
        t2 = math.sin(t1)
        t3 = t2 + x
        ys.append(t3)
    t4 = sum(ys)
    t5 = ys[0]
    t6 = ys[-1]
    t7 = t5 * t6
    t8 = t4 + t7
    return t8
