# s2sad golden file: golden/inputs/functions.py:squares, stage dup, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

from s2sad.runtime import dup


def squares(x):
    x_a, x_b = dup(x)
    total = 0
    t1 = len(x_a)
    total_1 = total
    for i in range(t1):
        i_a, i_b = dup(i)
        x_c, x_d = dup(x_b)
        t2 = x_c[i_a]
        t3 = x_d[i_b]
        t4 = t2 * t3
        total_2 = total_1 + t4
        total_1 = total_2
    return total_1
