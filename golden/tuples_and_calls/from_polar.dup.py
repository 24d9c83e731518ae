# s2sad golden file: golden/inputs/tuples_and_calls.py:from_polar, stage dup, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403

import math
from golden.inputs.tuples_and_calls import polar
from s2sad.runtime import dup


def from_polar(x, y):
    t1 = polar(x, y)
    r, theta = t1
    r_a, r_b = dup(r)
    theta_a, theta_b = dup(theta)
    t2 = math.cos(theta_a)
    t3 = r_a * t2
    t4 = r_b * theta_b
    t5 = t3 + t4
    return t5
