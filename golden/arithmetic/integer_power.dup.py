# s2sad golden file: golden/inputs/arithmetic.py:integer_power, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

from s2sad.runtime import dup


def integer_power(x, n):
    x_a, x_b = dup(x)
    n_a, n_b = dup(n)
    t1 = x_a**n_a
    t2 = n_b * x_b
    t3 = t1 + t2
    return t3
