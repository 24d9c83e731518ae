# s2sad golden file: golden/inputs/seeds.py:quadratic, stage forward, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403


def quadratic_jvp(x, x_dot):
    t1_dot = 2.0 * (x_dot * x) + 3.0 * x_dot
    t2 = x * x + 3 * x + 2
    return t2, t1_dot
