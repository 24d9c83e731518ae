# s2sad golden file: golden/inputs/inactive.py:settings, stage forward, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403

import math


def settings_jvp(x, x_dot):
    import math as m

    cfg = {"scale": 0.5, "power": 3}
    t1 = m.sin(x)
    t2 = cfg["scale"]
    y = t1 * t2
    y_dot = math.cos(x) * x_dot * t2
    t3 = cfg["power"]
    t4 = y**t3
    t4_dot = t3 * (y if t3 else 1.0) ** (t3 - 1) * y_dot
    return t4, t4_dot
