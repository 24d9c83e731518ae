# s2sad golden file: golden/inputs/math_calls.py:special, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def special(x):
    x_a, x_b, x_c = dup(x, 3)
    t1 = math.erf(x_a)
    t2 = math.hypot(x_b, 3.0)
    t3 = t1 + t2
    t4 = math.tanh(x_c)
    t5 = t4**2
    t6 = t3 + t5
    return t6
