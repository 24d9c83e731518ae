# s2sad golden file: golden/inputs/comprehensions.py:softest, stage forward, wrt xs, w.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403

import math


def softest_jvp(xs, w, xs_dot, w_dot):
    scaled = []
    scaled_dot = [0.0] * len(scaled)
    t1 = len(xs)
    for t2 in range(t1):
        x = xs[t2]
        x_dot = xs_dot[t2]
        t3_dot = w_dot * x + w * x_dot
        scaled.append(w * x)
        scaled_dot.append(t3_dot)
    empty = True
    lowest = None
    t4 = len(scaled)
    lowest_1 = lowest
    empty_1 = empty
    lowest_1_dot = None
    for t5 in range(t4):
        s = scaled[t5]
        s_dot = scaled_dot[t5]
        term = math.exp(s)
        term_dot = term * s_dot
        if empty_1:
            lowest_2 = term
            lowest_2_dot = term_dot
            empty_2 = False
        else:
            lowest_2 = min(lowest_1, term)
            lowest_2_dot = (0.0 if term < lowest_1 else lowest_1_dot) + (
                term_dot if term < lowest_1 else 0.0
            )
            empty_2 = empty_1
        lowest_1 = lowest_2
        lowest_1_dot = lowest_2_dot
        empty_1 = empty_2
    if empty_1:
        raise ValueError("min() arg is an empty sequence")
    t6 = scaled[-1]
    t7 = lowest_1 + t6
    t7_dot = lowest_1_dot + scaled_dot[-1]
    return t7, t7_dot
