# s2sad golden file: golden/inputs/loops.py:nested, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def nested(x, n):
    s = x
    s_1 = s
    for i in range(n):
        s_2 = s_1
        for j in range(i):
            t1 = s_2 * 0.9
            t2 = x * j
            s_3 = t1 + t2
            s_2 = s_3
        s_1 = s_2
    return s_1
