# s2sad golden file: golden/inputs/math_calls.py:special, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def special(x):
    t1 = math.erf(x)
    t2 = math.hypot(x, 3.0)
    t3 = t1 + t2
    t4 = math.tanh(x)
    t5 = t4**2
    t6 = t3 + t5
    return t6
