# s2sad golden file: golden/inputs/tuples_and_calls.py:swap, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403


def swap(x, y):
    a = x
    b = y
    b_1 = a * b
    a_1 = b
    t1 = a_1 - b_1
    return t1
