# s2sad golden file: golden/inputs/loops.py:with_continue, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

import math


def with_continue(x, n):
    s = 0.0
    s_1 = s
    for i in range(n):
        t1 = i % 3
        t2 = t1 == 0
        if not t2:
            t3 = x * i
            t4 = math.sin(t3)
            s_2 = s_1 + t4
            s_1 = s_2
    return s_1
