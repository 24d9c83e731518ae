# s2sad golden file: golden/inputs/arithmetic.py:constants, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def constants(x):
    x_a, x_b, x_c = dup(x, 3)
    t1 = math.pi * x_a
    t2 = t1 * x_b
    t3 = 0.001 * x_c
    t4 = t2 + t3
    t5 = t4 - math.e
    return t5
