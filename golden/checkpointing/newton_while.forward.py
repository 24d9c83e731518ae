# s2sad golden file: golden/inputs/checkpointing.py:newton_while, stage forward, wrt a.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403


def newton_while_jvp(a, tol, a_dot):
    x = a
    x_1 = x
    x_1_dot = a_dot
    while abs(x_1 * x_1 - a) > tol * a:
        t1 = a / x_1
        x_2 = 0.5 * (x_1 + t1)
        x_1_dot = 0.5 * (x_1_dot + (a_dot / x_1 - t1 * x_1_dot / x_1))
        x_1 = x_2
    return x_1, x_1_dot
