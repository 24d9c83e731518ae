# s2sad golden file: golden/inputs/tuples_and_calls.py:calls, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403

from golden.inputs.tuples_and_calls import scaled
from s2sad.runtime import dup


def calls(x, y):
    x_a, x_b = dup(x)
    a = scaled(x_a)
    a_a, a_b = dup(a)
    b = scaled(y, scale=x_b)
    b_a, b_b = dup(b)
    c = scaled(a_a, 3.0, shift=b_a)
    t1 = a_b + b_b
    t2 = t1 + c
    return t2
