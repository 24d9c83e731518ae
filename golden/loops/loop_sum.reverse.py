# s2sad golden file: golden/inputs/loops.py:loop_sum, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

import math


def loop_sum_grad(x, y, n):
    tape = []
    acc = 0.0
    acc_1 = acc
    for i in range(n):
        t1 = x * i
        t2 = math.sin(t1)
        acc_2 = acc_1 + t2 * y
        tape.append(t2)
        acc_1 = acc_2
    # line 8: for i in range(n):
    x_bar = 0.0
    y_bar = 0.0
    for i in reversed(range(n)):
        t2 = tape.pop()
        t1 = x * i
        # line 9: acc += math.sin(x * i) * y
        t2_bar = y
        y_bar += t2
        t1_bar = t2_bar * math.cos(t1)
        x_bar += t1_bar * i
    return x_bar, y_bar
