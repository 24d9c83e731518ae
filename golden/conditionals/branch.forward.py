# s2sad golden file: golden/inputs/conditionals.py:branch, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def branch_jvp(x, y, x_dot, y_dot):
    if x > y:
        z = x * y
        z_dot = x_dot * y + x * y_dot
    else:
        if x > 0:
            z = x + y
            z_dot = x_dot + y_dot
        else:
            z = -x
            z_dot = -x_dot
    t1 = z * z
    t1_dot = 2.0 * (z_dot * z)
    return t1, t1_dot
