# s2sad golden file: golden/inputs/arithmetic.py:augmented, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def augmented(x, y):
    s = x
    s_1 = s + y
    s_2 = s_1 * x
    s_3 = s_2 - 1.0
    s_4 = s_3 / y
    s_5 = s_4**2
    return s_5
