# s2sad golden file: golden/inputs/comprehensions.py:softest, stage anf, wrt xs, w.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403

import math


def softest(xs, w):
    scaled = []
    t1 = len(xs)
    for t2 in range(t1):
        x = xs[t2]
        t3 = w * x
        scaled.append(t3)
    empty = True
    lowest = None
    t4 = len(scaled)
    lowest_1 = lowest
    empty_1 = empty
    for t5 in range(t4):
        s = scaled[t5]
        term = math.exp(s)
        if empty_1:
            lowest_2 = term
            empty_2 = False
        else:
            lowest_2 = min(lowest_1, term)
            empty_2 = empty_1
        lowest_1 = lowest_2
        empty_1 = empty_2
    if empty_1:
        raise ValueError("min() arg is an empty sequence")
    t6 = scaled[-1]
    t7 = lowest_1 + t6
    return t7
