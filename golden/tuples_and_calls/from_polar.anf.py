# s2sad golden file: golden/inputs/tuples_and_calls.py:from_polar, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403

import math
from golden.inputs.tuples_and_calls import polar


def from_polar(x, y):
    t1 = polar(x, y)
    r, theta = t1
    t2 = math.cos(theta)
    t3 = r * t2
    t4 = r * theta
    t5 = t3 + t4
    return t5
