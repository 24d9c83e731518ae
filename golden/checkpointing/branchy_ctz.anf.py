# s2sad golden file: golden/inputs/checkpointing.py:branchy_ctz, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403

import math


def branchy_ctz(x, y, n):
    s = x
    s_1 = s
    for i in range(n):
        t1 = i % 2
        t2 = t1 == 0
        if t2:
            s_2 = s_1 * y
        else:
            t3 = math.sin(s_1)
            s_2 = t3 + y
        s_1 = s_2
    return s_1
