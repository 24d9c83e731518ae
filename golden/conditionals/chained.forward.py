# s2sad golden file: golden/inputs/conditionals.py:chained, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def chained_jvp(x, y, x_dot, y_dot):
    t1 = 0.0 < x
    if t1:
        t2 = x < 1.0
    else:
        t2 = t1
    if t2:
        inside = y > 0
    else:
        inside = t2
    if inside:
        t3 = x * y
        t3_dot = x_dot * y + x * y_dot
    else:
        t3 = x + y
        t3_dot = x_dot + y_dot
    return t3, t3_dot
