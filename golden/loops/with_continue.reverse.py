# s2sad golden file: golden/inputs/loops.py:with_continue, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

import math


def with_continue_grad(x, n):
    tape = []
    for i in range(n):
        t1 = i % 3 == 0
        if t1:
            t2 = None
            tape.append(t1)
            tape.append(t2)
        else:
            t2 = x * i
            t3 = math.sin(t2)
            tape.append(t1)
            tape.append(t2)
    # line 32: for i in range(n):
    x_bar = 0.0
    for i in reversed(range(n)):
        t2 = tape.pop()
        t1 = tape.pop()
        # line 33: if i % 3 == 0:
        if not t1:
            # line 35: s = s + math.sin(x * i)
            t2_bar = math.cos(t2)
            x_bar += t2_bar * i
    return x_bar
