# s2sad golden file: golden/inputs/arithmetic.py:unary_abs_min_max, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def unary_abs_min_max(x, y):
    t1 = -x
    t2 = x - y
    t3 = abs(t2)
    t4 = t1 + t3
    t5 = min(x, y)
    t6 = max(x, 2.0)
    t7 = t5 * t6
    t8 = t4 + t7
    return t8
