# s2sad golden file: golden/inputs/arithmetic.py:shadowing, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

from s2sad.runtime import dup


def shadowing(x, y):
    x_a, x_b = dup(x)
    y_a, y_b = dup(y)
    t = x_a * y_a
    x_1 = t + x_b
    x_1_a, x_1_b, x_1_c = dup(x_1, 3)
    t_1 = x_1_a * x_1_b
    y_1 = t_1 - y_b
    t1 = x_1_c * y_1
    return t1
