# s2sad golden file: golden/inputs/seeds.py:program, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403


def program(x, y):
    p = 7 * x
    r = 1 / y
    t1 = p * x
    q = t1 * 5
    t2 = 2 * p
    t3 = t2 * q
    t4 = 3 * r
    v = t3 + t4
    return v
