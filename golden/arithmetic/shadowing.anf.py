# s2sad golden file: golden/inputs/arithmetic.py:shadowing, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def shadowing(x, y):
    t = x * y
    x_1 = t + x
    t_1 = x_1 * x_1
    y_1 = t_1 - y
    t1 = x_1 * y_1
    return t1
