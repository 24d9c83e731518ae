# s2sad golden file: golden/inputs/loops.py:loop_sum, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

import math


def loop_sum(x, y, n):
    acc = 0.0
    acc_1 = acc
    for i in range(n):
        t1 = x * i
        t2 = math.sin(t1)
        t3 = t2 * y
        acc_2 = acc_1 + t3
        acc_1 = acc_2
    return acc_1
