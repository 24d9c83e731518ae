# s2sad golden file: golden/inputs/conditionals.py:safe_sqrt, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def safe_sqrt(x, y):
    x_a, x_b = dup(x)
    t1 = x_a > 0
    if t1:
        s = math.sqrt(x_b)
    else:
        s = 0.0
    t2 = s * y
    return t2
