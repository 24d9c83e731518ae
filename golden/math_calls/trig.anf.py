# s2sad golden file: golden/inputs/math_calls.py:trig, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def trig(x):
    t1 = math.sin(x)
    t2 = math.cos(x)
    t3 = t1 * t2
    t4 = math.tan(x)
    t5 = t3 + t4
    t6 = math.atan2(x, 2.0)
    t7 = t5 + t6
    return t7
