# s2sad golden file: golden/inputs/comprehensions.py:softest, stage dup, wrt xs, w.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def softest(xs, w):
    xs_a, xs_b = dup(xs)
    scaled = []
    scaled_a, scaled_b, scaled_c, scaled_d = dup(scaled, 4)
    t1 = len(xs_a)
    for t2 in range(t1):
        x = xs_b[t2]
        t3 = w * x
        scaled_a.append(t3)
    empty = True
    lowest = None
    t4 = len(scaled_b)
    lowest_1 = lowest
    empty_1 = empty
    for t5 in range(t4):
        empty_1_a, empty_1_b = dup(empty_1)
        s = scaled_c[t5]
        term = math.exp(s)
        if empty_1_a:
            lowest_2 = term
            empty_2 = False
        else:
            lowest_2 = min(lowest_1, term)
            empty_2 = empty_1_b
        lowest_1 = lowest_2
        empty_1 = empty_2
    if empty_1:
        raise ValueError("min() arg is an empty sequence")
    t6 = scaled_d[-1]
    t7 = lowest_1 + t6
    return t7
