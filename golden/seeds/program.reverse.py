# s2sad golden file: golden/inputs/seeds.py:program, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403


def program_grad(x, y):
    p = 7 * x
    r = 1 / y
    t1 = p * x
    q = t1 * 5
    t2 = 2 * p
    # line 19: v = 2 * p * q + 3 * r
    t2_bar = q
    q_bar = t2
    p_b_bar = t2_bar * 2.0
    # line 18: q = p * x * 5
    t1_bar = q_bar * 5.0
    p_a_bar = t1_bar * x
    x_b_bar = t1_bar * p
    # line 17: r = 1 / y
    y_bar = -3.0 * r / y
    # line 16: p = 7 * x
    p_bar = p_a_bar + p_b_bar
    x_a_bar = p_bar * 7.0
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + x_b_bar
    return x_bar, y_bar
