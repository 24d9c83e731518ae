# s2sad golden file: golden/inputs/functions.py:chosen, stage dup, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import math
import numpy as np
from s2sad.runtime import dup


def chosen(x, smooth):
    x_a, x_b = dup(x)
    smooth_a, smooth_b = dup(smooth)
    total = 0.0
    if smooth_a:
        t1 = np.tanh(x_a)
    else:
        t1 = np.sin(x_a)
    t2 = math.exp(t1)
    total_1 = total + t2
    if smooth_b:
        t3 = np.tanh(x_b)
    else:
        t3 = np.sin(x_b)
    t4 = math.cos(t3)
    total_2 = total_1 + t4
    return total_2
