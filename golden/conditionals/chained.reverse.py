# s2sad golden file: golden/inputs/conditionals.py:chained, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def chained_grad(x, y):
    t1 = 0.0 < x
    if t1:
        t2 = x < 1.0
    else:
        t2 = t1
    if t2:
        inside = y > 0
    else:
        inside = t2
    # line 36: return x * y if inside else x + y
    t3_bar = 1.0
    if inside:
        x_bar = y
        y_bar = x
    else:
        x_bar = t3_bar
        y_bar = t3_bar
    return x_bar, y_bar
