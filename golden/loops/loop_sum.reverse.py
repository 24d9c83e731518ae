# s2sad golden file: golden/inputs/loops.py:loop_sum, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

import math


def loop_sum_grad(x, y, n):
    tape = []
    for i in range(n):
        t1 = math.sin(x * i)
        tape.append(t1)
    # line 8: for i in range(n):
    x_bar = 0.0
    y_bar = 0.0
    for i in reversed(range(n)):
        t1 = tape.pop()
        t2 = x * i
        # line 9: acc += math.sin(x * i) * y
        t1_bar = y
        y_bar += t1
        t2_bar = t1_bar * math.cos(t2)
        x_bar += t2_bar * i
    return x_bar, y_bar
