# s2sad golden file: golden/inputs/conditionals.py:relu_like, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def relu_like_grad(x):
    t1 = x > 0
    # line 7: return x if x > 0 else 0.1 * x
    t2_bar = 1.0
    if t1:
        x_bar = t2_bar
    else:
        x_bar = 0.1
    return x_bar
