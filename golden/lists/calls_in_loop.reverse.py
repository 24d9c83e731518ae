# s2sad golden file: golden/inputs/lists.py:calls_in_loop, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

import math


def calls_in_loop_grad(x, n):
    tape = []
    s = x
    s_1 = s
    for i in range(n):
        s_2, s_2_saved = step_fwd(s_1, x)
        tape.append(s_2_saved)
        s_1 = s_2
    # line 37: return s
    s_1_bar = 1.0
    # line 35: for i in range(n):
    x_b_bar = 0.0
    for i in reversed(range(n)):
        s_2_saved = tape.pop()
        # line 36: s = step(s, x)
        s_2_bar = s_1_bar
        s_1_bar, x_b_bar_part = step_bwd(s_2_saved, s_2_bar)
        x_b_bar += x_b_bar_part
    s_bar = s_1_bar
    # adjoint of x: the sum over its uses
    x_bar = s_bar + x_b_bar
    return x_bar


def step_fwd(s, x):
    t1 = s > 0.5
    if t1:
        result = s * x - math.cos(s)
    else:
        result = s + x * x
    return result, (s, x, t1)


def step_bwd(saved, result_bar):
    s, x, t1 = saved
    # line 28: if s > 0.5:
    if t1:
        # line 29: return s * x - math.cos(s)
        s_d_bar = result_bar * math.sin(s)
        s_c_bar = result_bar * x
        x_bar = result_bar * s
        # adjoint of s: the sum over its uses
        s_bar = s_c_bar + s_d_bar
    else:
        # line 30: return s + x * x
        s_bar = result_bar
        x_a_bar = result_bar * x
        # adjoint of x: the sum over its uses
        x_bar = x_a_bar + x_a_bar
    return s_bar, x_bar
