# s2sad golden file: golden/inputs/conditionals.py:early_return, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403

from s2sad.runtime import dup


def early_return(x):
    x_a, x_b = dup(x)
    t1 = x_a < 0
    if t1:
        result = -x_b
    else:
        x_c, x_d, x_e = dup(x_b, 3)
        y = x_c * x_d
        y_a, y_b = dup(y)
        t2 = y_a > 4
        if t2:
            result = y_b
        else:
            result = y_b + x_e
    return result
