# s2sad golden file: golden/inputs/seeds.py:quadratic, stage anf, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403


def quadratic(x):
    t1 = x * x
    t2 = 3 * x
    t3 = t1 + t2
    t4 = t3 + 2
    return t4
