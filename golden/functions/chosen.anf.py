# s2sad golden file: golden/inputs/functions.py:chosen, stage anf, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import math
import numpy as np


def chosen(x, smooth):
    total = 0.0
    if smooth:
        t1 = np.tanh(x)
    else:
        t1 = np.sin(x)
    t2 = math.exp(t1)
    total_1 = total + t2
    if smooth:
        t3 = np.tanh(x)
    else:
        t3 = np.sin(x)
    t4 = math.cos(t3)
    total_2 = total_1 + t4
    return total_2
