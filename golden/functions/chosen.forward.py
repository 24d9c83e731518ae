# s2sad golden file: golden/inputs/functions.py:chosen, stage forward, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import math
import numpy as np


def chosen_jvp(x, smooth, x_dot):
    total = 0.0
    if smooth:
        t1 = np.tanh(x)
        t1_dot = (1.0 - t1 * t1) * x_dot
    else:
        t1 = np.sin(x)
        t1_dot = np.cos(x) * x_dot
    t2 = math.exp(t1)
    t2_dot = t2 * t1_dot
    total_1 = total + t2
    if smooth:
        t3 = np.tanh(x)
        t3_dot = (1.0 - t3 * t3) * x_dot
    else:
        t3 = np.sin(x)
        t3_dot = np.cos(x) * x_dot
    total_2 = total_1 + math.cos(t3)
    total_2_dot = t2_dot - math.sin(t3) * t3_dot
    return total_2, total_2_dot
