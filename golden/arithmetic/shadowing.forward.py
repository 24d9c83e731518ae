# s2sad golden file: golden/inputs/arithmetic.py:shadowing, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def shadowing_jvp(x, y, x_dot, y_dot):
    t = x * y
    t_dot = x_dot * y + x * y_dot
    x_1 = t + x
    x_1_dot = t_dot + x_dot
    t_1 = x_1 * x_1
    t_1_dot = 2.0 * (x_1_dot * x_1)
    y_1 = t_1 - y
    y_1_dot = t_1_dot - y_dot
    t1 = x_1 * y_1
    t1_dot = x_1_dot * y_1 + x_1 * y_1_dot
    return t1, t1_dot
