# s2sad golden file: golden/inputs/functions.py:squares, stage forward, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403


def squares_jvp(x, x_dot):
    total = 0
    t1 = len(x)
    total_1 = total
    total_1_dot = 0.0
    for i in range(t1):
        t2 = x[i]
        total_1 = total_1 + t2 * t2
        total_1_dot = total_1_dot + 2.0 * (x_dot[i] * t2)
    return total_1, total_1_dot
