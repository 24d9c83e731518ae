# s2sad golden file: golden/inputs/arithmetic.py:augmented, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

from s2sad.runtime import dup


def augmented(x, y):
    x_a, x_b = dup(x)
    y_a, y_b = dup(y)
    s = x_a
    s_1 = s + y_a
    s_2 = s_1 * x_b
    s_3 = s_2 - 1.0
    s_4 = s_3 / y_b
    s_5 = s_4**2
    return s_5
