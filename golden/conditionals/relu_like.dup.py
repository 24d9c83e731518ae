# s2sad golden file: golden/inputs/conditionals.py:relu_like, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403

from s2sad.runtime import dup


def relu_like(x):
    x_a, x_b = dup(x)
    t1 = x_a > 0
    if t1:
        t2 = x_b
    else:
        t2 = 0.1 * x_b
    return t2
