# s2sad golden file: golden/inputs/arithmetic.py:constants, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def constants_jvp(x, x_dot):
    t1 = math.pi * x
    t1_dot = math.pi * x_dot
    t2 = t1 * x
    t2_dot = t1_dot * x + t1 * x_dot
    t3 = 0.001 * x
    t3_dot = 0.001 * x_dot
    t4 = t2 + t3
    t4_dot = t2_dot + t3_dot
    t5 = t4 - math.e
    return t5, t4_dot
