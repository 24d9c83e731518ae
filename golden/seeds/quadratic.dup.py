# s2sad golden file: golden/inputs/seeds.py:quadratic, stage dup, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403

from s2sad.runtime import dup


def quadratic(x):
    x_a, x_b, x_c = dup(x, 3)
    t1 = x_a * x_b
    t2 = 3 * x_c
    t3 = t1 + t2
    t4 = t3 + 2
    return t4
