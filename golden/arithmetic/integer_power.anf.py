# s2sad golden file: golden/inputs/arithmetic.py:integer_power, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def integer_power(x, n):
    t1 = x**n
    t2 = n * x
    t3 = t1 + t2
    return t3
