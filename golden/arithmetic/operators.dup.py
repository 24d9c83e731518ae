# s2sad golden file: golden/inputs/arithmetic.py:operators, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

from s2sad.runtime import dup


def operators(x, y):
    x_a, x_b, x_c, x_d, x_e, x_f = dup(x, 6)
    y_a, y_b, y_c, y_d, y_e, y_f = dup(y, 6)
    a = x_a + y_a
    b = x_b - y_b
    c = x_c * y_c
    d = x_d / y_d
    e = x_e**y_e
    t1 = x_f * 4.0
    f = t1 // y_f
    t2 = a * b
    t3 = t2 + c
    t4 = t3 - d
    t5 = t4 + e
    t6 = t5 - f
    return t6
