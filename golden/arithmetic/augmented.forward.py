# s2sad golden file: golden/inputs/arithmetic.py:augmented, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def augmented_jvp(x, y, x_dot, y_dot):
    s = x
    s_1 = s + y
    s_1_dot = x_dot + y_dot
    s_2 = s_1 * x
    s_2_dot = s_1_dot * x + s_1 * x_dot
    s_3 = s_2 - 1.0
    s_4 = s_3 / y
    s_4_dot = s_2_dot / y - s_4 * y_dot / y
    s_5 = s_4**2
    s_5_dot = 2.0 * s_4 * s_4_dot
    return s_5, s_5_dot
