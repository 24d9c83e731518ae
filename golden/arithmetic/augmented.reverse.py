# s2sad golden file: golden/inputs/arithmetic.py:augmented, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def augmented_grad(x, y):
    s = x
    s_1 = s + y
    s_2 = s_1 * x
    s_3 = s_2 - 1.0
    s_4 = s_3 / y
    s_5 = s_4**2
    # line 30: s **= 2
    s_4_bar = 2.0 * s_4
    # line 29: s /= y
    s_3_bar = s_4_bar / y
    # line 27: s *= x
    s_1_bar = s_3_bar * x
    x_b_bar = s_3_bar * s_1
    # adjoint of y: the sum over its uses
    y_bar = s_1_bar - s_4_bar * s_4 / y
    x_bar = s_1_bar + x_b_bar
    return x_bar, y_bar
