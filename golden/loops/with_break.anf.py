# s2sad golden file: golden/inputs/loops.py:with_break, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def with_break(x, n):
    s = 0.0
    s_1 = s
    for i in range(n):
        t1 = x * i
        s_2 = s_1 + t1
        t2 = s_2 > 10.0
        if t2:
            s_1 = s_2
            break
        else:
            s_3 = s_2 * 1.1
            s_1 = s_3
    return s_1
