# s2sad golden file: golden/inputs/arithmetic.py:shadowing, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def shadowing_grad(x, y):
    t = x * y
    x_1 = t + x
    t_1 = x_1 * x_1
    y_1 = t_1 - y
    # line 39: return x * y
    x_1_c_bar = y_1
    y_1_bar = x_1
    # line 37: t = x * x
    x_1_a_bar = y_1_bar * x_1
    # line 36: x = t + x
    x_1_bar = x_1_a_bar + x_1_a_bar + x_1_c_bar
    # line 35: t = x * y
    x_a_bar = x_1_bar * y
    y_a_bar = x_1_bar * x
    # adjoint of y: the sum over its uses
    y_bar = y_a_bar - y_1_bar
    x_bar = x_a_bar + x_1_bar
    return x_bar, y_bar
