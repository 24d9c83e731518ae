# s2sad golden file: golden/inputs/conditionals.py:relu_like, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def relu_like_jvp(x, x_dot):
    if x > 0:
        t1 = x
        t1_dot = x_dot
    else:
        t1 = 0.1 * x
        t1_dot = 0.1 * x_dot
    return t1, t1_dot
