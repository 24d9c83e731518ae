# s2sad golden file: golden/inputs/arithmetic.py:operators, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def operators(x, y):
    a = x + y
    b = x - y
    c = x * y
    d = x / y
    e = x**y
    t1 = x * 4.0
    f = t1 // y
    t2 = a * b
    t3 = t2 + c
    t4 = t3 - d
    t5 = t4 + e
    t6 = t5 - f
    return t6
