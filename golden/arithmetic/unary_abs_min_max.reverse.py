# s2sad golden file: golden/inputs/arithmetic.py:unary_abs_min_max, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def unary_abs_min_max_grad(x, y):
    t1 = -x
    t2 = x - y
    t3 = abs(t2)
    t4 = t1 + t3
    t5 = min(x, y)
    t6 = max(x, 2.0)
    t7 = t5 * t6
    t8 = t4 + t7
    # line 17: return -x + abs(x - y) + min(x, y) * max(x, 2.0)
    t8_bar = 1.0
    t5_bar = t8_bar * t6
    t6_bar = t8_bar * t5
    x_d_bar = 0.0 if 2.0 > x else t6_bar
    x_c_bar = 0.0 if y < x else t5_bar
    y_b_bar = t5_bar if y < x else 0.0
    t2_bar = t8_bar if t2 > 0 else -t8_bar if t2 < 0 else 0.0
    y_a_bar = -t2_bar
    x_a_bar = -t8_bar
    # adjoint of y: the sum over its uses
    y_bar = y_a_bar + y_b_bar
    x_bar = x_a_bar + t2_bar + x_c_bar + x_d_bar
    return x_bar, y_bar
