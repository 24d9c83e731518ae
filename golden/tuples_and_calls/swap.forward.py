# s2sad golden file: golden/inputs/tuples_and_calls.py:swap, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403


def swap_jvp(x, y, x_dot, y_dot):
    a = x
    b = y
    b_1 = a * b
    b_1_dot = x_dot * b + a * y_dot
    a_1 = b
    t1 = a_1 - b_1
    t1_dot = y_dot - b_1_dot
    return t1, t1_dot
