# s2sad golden file: golden/inputs/seeds.py:z, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403

import math


def z(x, y):
    t1 = x * y
    t2 = math.sin(x)
    z = t1 + t2
    return z
