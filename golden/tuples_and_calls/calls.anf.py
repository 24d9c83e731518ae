# s2sad golden file: golden/inputs/tuples_and_calls.py:calls, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403

from golden.inputs.tuples_and_calls import scaled


def calls(x, y):
    a = scaled(x)
    b = scaled(y, scale=x)
    c = scaled(a, 3.0, shift=b)
    t1 = a + b
    t2 = t1 + c
    return t2
