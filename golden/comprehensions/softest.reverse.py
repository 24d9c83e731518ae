# s2sad golden file: golden/inputs/comprehensions.py:softest, stage reverse, wrt xs, w.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403

import math


def softest_grad(xs, w):
    tape_2 = []
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
        tape_2.append(lowest_1)
        tape_2.append(empty_1)
        tape_2.append(term)
        lowest_1 = lowest_2
        empty_1 = empty_2
    if empty_1:
        raise ValueError("min() arg is an empty sequence")
    t6 = scaled[-1]
    # line 12: return min(math.exp(s) for s in scaled) + scaled[-1]
    t7_bar = 1.0
    xs_bar = [0.0] * len(xs)
    scaled_bar = [0.0] * len(scaled)
    lowest_1_bar = t7_bar
    scaled_bar[-1] += t7_bar
    for t5 in reversed(range(t4)):
        term = tape_2.pop()
        empty_1 = tape_2.pop()
        lowest_1 = tape_2.pop()
        lowest_2_bar = lowest_1_bar
        if empty_1:
            term_bar = lowest_2_bar
            lowest_1_bar = 0.0
        else:
            lowest_1_bar = 0.0 if term < lowest_1 else lowest_2_bar
            term_bar = lowest_2_bar if term < lowest_1 else 0.0
        # line 12: return min(math.exp(s) for s in scaled) + scaled[-1]
        s_bar = term_bar * term
        scaled_bar[t5] += s_bar
    # line 11: scaled = [w * x for x in xs]
    w_bar = 0.0
    for t2 in reversed(range(t1)):
        x = xs[t2]
        t3_bar = scaled_bar.pop()
        w_bar += t3_bar * x
        x_bar = t3_bar * w
        xs_bar[t2] += x_bar
    return xs_bar, w_bar
