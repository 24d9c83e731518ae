# s2sad golden file: golden/inputs/arithmetic.py:integer_power, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def integer_power_grad(x, n):
    t1 = x**n
    # line 43: return x**n + n * x
    t2_bar = 1.0
    x_b_bar = t2_bar * n
    x_a_bar = t2_bar * n * (x if n else 1.0) ** (n - 1)
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + x_b_bar
    return x_bar
