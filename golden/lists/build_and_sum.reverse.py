# s2sad golden file: golden/inputs/lists.py:build_and_sum, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def build_and_sum_grad(x, n):
    ys = []
    for i in range(n):
        t1 = x * i
        t2 = math.sin(t1) + x
        ys.append(t2)
    t3 = sum(ys)
    t4 = ys[0]
    t5 = ys[-1]
    # line 17: return sum(ys) + ys[0] * ys[-1]
    t6_bar = 1.0
    ys_bar = [0.0] * len(ys)
    t4_bar = t5
    t5_bar = t4
    ys_bar[-1] += t5_bar
    ys_bar[0] += t4_bar
    for k in range(len(ys_bar)):
        ys_bar[k] += t6_bar
    # line 15: for i in range(n):
    x_bar = 0.0
    for i in reversed(range(n)):
        t1 = x * i
        # line 16: ys.append(math.sin(x * i) + x)
        t2_bar = ys_bar.pop()
        t1_bar = t2_bar * math.cos(t1)
        x_a_bar = t1_bar * i
        # adjoint of x: the sum over its uses
        x_bar += x_a_bar + t2_bar
    return x_bar
