# s2sad golden file: golden/inputs/conditionals.py:branch, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403

from s2sad.runtime import dup


def branch(x, y):
    x_a, x_b = dup(x)
    y_a, y_b = dup(y)
    t1 = x_a > y_a
    if t1:
        z = x_b * y_b
    else:
        x_c, x_d = dup(x_b)
        t2 = x_c > 0
        if t2:
            z = x_d + y_b
        else:
            z = -x_d
    z_a, z_b = dup(z)
    t3 = z_a * z_b
    return t3
