# s2sad golden file: golden/inputs/conditionals.py:early_return, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def early_return(x):
    t1 = x < 0
    if t1:
        result = -x
    else:
        y = x * x
        t2 = y > 4
        if t2:
            result = y
        else:
            result = y + x
    return result
