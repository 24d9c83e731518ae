# s2sad golden file: golden/inputs/arithmetic.py:constants, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

import math


def constants(x):
    t1 = math.pi * x
    t2 = t1 * x
    t3 = 0.001 * x
    t4 = t2 + t3
    t5 = t4 - math.e
    return t5
