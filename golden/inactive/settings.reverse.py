# s2sad golden file: golden/inputs/inactive.py:settings, stage reverse, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403

import math


def settings_grad(x):
    import math as m

    cfg = {"scale": 0.5, "power": 3}
    t1 = m.sin(x)
    t2 = cfg["scale"]
    y = t1 * t2
    t3 = cfg["power"]
    t4 = y**t3
    # line 22: return y ** cfg["power"]
    t4_bar = 1.0
    y_bar = t4_bar * t3 * (y if t3 else 1.0) ** (t3 - 1)
    # line 21: y = m.sin(x) * cfg["scale"]
    t1_bar = y_bar * t2
    x_bar = t1_bar * math.cos(x)
    return x_bar
