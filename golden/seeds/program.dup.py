# s2sad golden file: golden/inputs/seeds.py:program, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403

from s2sad.runtime import dup


def program(x, y):
    x_a, x_b = dup(x)
    p = 7 * x_a
    p_a, p_b = dup(p)
    r = 1 / y
    t1 = p_a * x_b
    q = t1 * 5
    t2 = 2 * p_b
    t3 = t2 * q
    t4 = 3 * r
    v = t3 + t4
    return v
