# s2sad golden file: golden/inputs/tuples_and_calls.py:swap, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403

from s2sad.runtime import dup


def swap(x, y):
    a = x
    b = y
    b_a, b_b = dup(b)
    b_1 = a * b_a
    a_1 = b_b
    t1 = a_1 - b_1
    return t1
