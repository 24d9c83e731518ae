# s2sad golden file: golden/inputs/conditionals.py:branch, stage anf, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def branch(x, y):
    t1 = x > y
    if t1:
        z = x * y
    else:
        t2 = x > 0
        if t2:
            z = x + y
        else:
            z = -x
    t3 = z * z
    return t3
