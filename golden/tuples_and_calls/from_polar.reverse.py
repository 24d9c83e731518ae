# s2sad golden file: golden/inputs/tuples_and_calls.py:from_polar, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403

import math


def from_polar_grad(x, y):
    t1, t1_saved = polar_fwd(x, y)
    r, theta = t1
    t2 = math.cos(theta)
    # line 18: return r * math.cos(theta) + r * theta
    r_b_bar = theta
    theta_b_bar = r
    r_a_bar = t2
    t2_bar = r
    # line 17: r, theta = polar(x, y)
    theta_bar = theta_b_bar - t2_bar * math.sin(theta)
    r_bar = r_a_bar + r_b_bar
    t1_bar = (r_bar, theta_bar)
    x_bar, y_bar = polar_bwd(t1_saved, t1_bar)
    return x_bar, y_bar


def polar_fwd(x, y):
    t1 = math.hypot(x, y)
    t2 = math.atan2(y, x)
    t3 = (t1, t2)
    return t3, (x, y, t1)


def polar_bwd(saved, t3_bar):
    x, y, t1 = saved
    # line 13: return math.hypot(x, y), math.atan2(y, x)
    t1_bar = t3_bar[0]
    t2_bar = t3_bar[1]
    r1 = x * x + y * y
    y_b_bar = t2_bar * x / r1
    x_a_bar = t1_bar * x / t1
    y_a_bar = t1_bar * y / t1
    # adjoint of y: the sum over its uses
    y_bar = y_a_bar + y_b_bar
    x_bar = x_a_bar - t2_bar * y / r1
    return x_bar, y_bar
