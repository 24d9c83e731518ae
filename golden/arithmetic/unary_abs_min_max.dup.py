# s2sad golden file: golden/inputs/arithmetic.py:unary_abs_min_max, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

from s2sad.runtime import dup


def unary_abs_min_max(x, y):
    x_a, x_b, x_c, x_d = dup(x, 4)
    y_a, y_b = dup(y)
    t1 = -x_a
    t2 = x_b - y_a
    t3 = abs(t2)
    t4 = t1 + t3
    t5 = min(x_c, y_b)
    t6 = max(x_d, 2.0)
    t7 = t5 * t6
    t8 = t4 + t7
    return t8
