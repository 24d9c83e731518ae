# s2sad golden file: golden/inputs/loops.py:newton_sqrt, stage forward, wrt a.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def newton_sqrt_jvp(a, a_dot):
    x = a
    x_1 = x
    x_1_dot = a_dot
    while abs(x_1 * x_1 - a) > 1e-12 * a:
        t1 = a / x_1
        x_2 = 0.5 * (x_1 + t1)
        x_1_dot = 0.5 * (x_1_dot + (a_dot / x_1 - t1 * x_1_dot / x_1))
        x_1 = x_2
    return x_1, x_1_dot
