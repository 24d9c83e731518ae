# s2sad golden file: golden/inputs/conditionals.py:relu_like, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def relu_like(x):
    t1 = x > 0
    if t1:
        t2 = x
    else:
        t2 = 0.1 * x
    return t2
