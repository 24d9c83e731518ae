# s2sad golden file: golden/inputs/conditionals.py:chained, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403

from s2sad.runtime import dup


def chained(x, y):
    x_a, x_b, x_c = dup(x, 3)
    y_a, y_b = dup(y)
    t1 = 0.0 < x_a
    t1_a, t1_b = dup(t1)
    if t1_a:
        t2 = x_b < 1.0
    else:
        t2 = t1_b
    t2_a, t2_b = dup(t2)
    if t2_a:
        inside = y_a > 0
    else:
        inside = t2_b
    if inside:
        t3 = x_c * y_b
    else:
        t3 = x_c + y_b
    return t3
