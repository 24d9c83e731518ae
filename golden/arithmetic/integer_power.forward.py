# s2sad golden file: golden/inputs/arithmetic.py:integer_power, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def integer_power_jvp(x, n, x_dot):
    t1 = x**n + n * x
    t1_dot = n * (x if n else 1.0) ** (n - 1) * x_dot + n * x_dot
    return t1, t1_dot
