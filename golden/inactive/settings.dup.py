# s2sad golden file: golden/inputs/inactive.py:settings, stage dup, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403

from s2sad.runtime import dup


def settings(x):
    import math as m

    cfg = {"scale": 0.5, "power": 3}
    cfg_a, cfg_b = dup(cfg)
    t1 = m.sin(x)
    t2 = cfg_a["scale"]
    y = t1 * t2
    t3 = cfg_b["power"]
    t4 = y**t3
    return t4
