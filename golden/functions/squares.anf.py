# s2sad golden file: golden/inputs/functions.py:squares, stage anf, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403


def squares(x):
    total = 0
    t1 = len(x)
    total_1 = total
    for i in range(t1):
        t2 = x[i]
        t3 = x[i]
        t4 = t2 * t3
        total_2 = total_1 + t4
        total_1 = total_2
    return total_1
