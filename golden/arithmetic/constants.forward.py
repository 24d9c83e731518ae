# s2sad golden file: golden/inputs/arithmetic.py:constants, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403

import math


def constants_jvp(x, x_dot):
    t1 = math.pi * x
    t2_dot = math.pi * x_dot * x + t1 * x_dot + 0.001 * x_dot
    t3 = t1 * x + 0.001 * x - math.e
    return t3, t2_dot
