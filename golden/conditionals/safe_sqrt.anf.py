# s2sad golden file: golden/inputs/conditionals.py:safe_sqrt, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403

import math


def safe_sqrt(x, y):
    t1 = x > 0
    if t1:
        s = math.sqrt(x)
    else:
        s = 0.0
    t2 = s * y
    return t2
