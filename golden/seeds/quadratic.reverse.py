# s2sad golden file: golden/inputs/seeds.py:quadratic, stage reverse, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403


def quadratic_grad(x):
    # line 7: return x * x + 3 * x + 2
    x_c_bar = 3.0
    x_a_bar = x
    x_b_bar = x
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + x_b_bar + x_c_bar
    return x_bar
