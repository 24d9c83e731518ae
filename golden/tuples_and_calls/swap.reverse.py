# s2sad golden file: golden/inputs/tuples_and_calls.py:swap, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403


def swap_grad(x, y):
    a = x
    b = y
    # line 9: return a - b
    t1_bar = 1.0
    # line 8: a, b = b, a * b
    x_bar = -b
    # line 7: a, b = x, y
    y_bar = t1_bar - a
    return x_bar, y_bar
