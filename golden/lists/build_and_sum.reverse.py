# s2sad golden file: golden/inputs/lists.py:build_and_sum, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def build_and_sum_grad(x, n):
    ys = []
    for i in range(n):
        t1 = math.sin(x * i) + x
        ys.append(t1)
    t2 = sum(ys)
    t3 = ys[0]
    t4 = ys[-1]
    # line 17: return sum(ys) + ys[0] * ys[-1]
    t5_bar = 1.0
    ys_bar = [0.0] * len(ys)
    t3_bar = t4
    t4_bar = t3
    ys_bar[-1] += t4_bar
    ys_bar[0] += t3_bar
    for k in range(len(ys_bar)):
        ys_bar[k] += t5_bar
    # line 15: for i in range(n):
    x_bar = 0.0
    for i in reversed(range(n)):
        t6 = x * i
        # line 16: ys.append(math.sin(x * i) + x)
        t1_bar = ys_bar.pop()
        t6_bar = t1_bar * math.cos(t6)
        x_a_bar = t6_bar * i
        # adjoint of x: the sum over its uses
        x_bar += x_a_bar + t1_bar
    return x_bar
