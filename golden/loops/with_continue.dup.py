# s2sad golden file: golden/inputs/loops.py:with_continue, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def with_continue(x, n):
    s = 0.0
    s_1 = s
    for i in range(n):
        i_a, i_b = dup(i)
        t1 = i_a % 3
        t2 = t1 == 0
        if not t2:
            t3 = x * i_b
            t4 = math.sin(t3)
            s_2 = s_1 + t4
            s_1 = s_2
    return s_1
