# s2sad golden file: golden/inputs/seeds.py:quadratic, stage forward, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403


def quadratic_jvp(x, x_dot):
    t1 = x * x
    t1_dot = 2.0 * (x_dot * x)
    t2 = 3 * x
    t2_dot = 3.0 * x_dot
    t3 = t1 + t2
    t3_dot = t1_dot + t2_dot
    t4 = t3 + 2
    return t4, t3_dot
