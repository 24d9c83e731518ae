# s2sad golden file: golden/inputs/loops.py:with_break, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

from s2sad.runtime import dup


def with_break(x, n):
    s = 0.0
    s_1 = s
    for i in range(n):
        t1 = x * i
        s_2 = s_1 + t1
        s_2_a, s_2_b = dup(s_2)
        t2 = s_2_a > 10.0
        if t2:
            s_1 = s_2_b
            break
        else:
            s_3 = s_2_b * 1.1
            s_1 = s_3
    return s_1
