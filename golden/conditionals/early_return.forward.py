# s2sad golden file: golden/inputs/conditionals.py:early_return, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def early_return_jvp(x, x_dot):
    if x < 0:
        result = -x
        result_dot = -x_dot
    else:
        y = x * x
        y_dot = 2.0 * (x_dot * x)
        if y > 4:
            result = y
            result_dot = y_dot
        else:
            result = y + x
            result_dot = y_dot + x_dot
    return result, result_dot
