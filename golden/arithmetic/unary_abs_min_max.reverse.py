# s2sad golden file: golden/inputs/arithmetic.py:unary_abs_min_max, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def unary_abs_min_max_grad(x, y):
    t1 = x - y
    t2 = min(x, y)
    t3 = max(x, 2.0)
    # line 17: return -x + abs(x - y) + min(x, y) * max(x, 2.0)
    t4_bar = 1.0
    t2_bar = t3
    t3_bar = t2
    x_d_bar = 0.0 if 2.0 > x else t3_bar
    x_c_bar = 0.0 if y < x else t2_bar
    y_b_bar = t2_bar if y < x else 0.0
    t1_bar = t4_bar if t1 > 0 else -1.0 if t1 < 0 else 0.0
    x_a_bar = -1.0
    # adjoint of y: the sum over its uses
    y_bar = y_b_bar - t1_bar
    x_bar = x_a_bar + t1_bar + x_c_bar + x_d_bar
    return x_bar, y_bar
