# s2sad golden file: golden/inputs/conditionals.py:branch, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def branch_grad(x, y):
    t1 = x > y
    if t1:
        z = x * y
    else:
        t2 = x > 0
        if t2:
            z = x + y
        else:
            z = -x
    # line 22: return z * z
    z_a_bar = z
    z_b_bar = z
    # line 16: if x > y:
    z_bar = z_a_bar + z_b_bar
    if t1:
        # line 17: z = x * y
        x_bar = z_bar * y
        y_bar = z_bar * x
    else:
        # line 18: elif x > 0:
        if t2:
            # line 19: z = x + y
            x_d_bar = z_bar
            y_bar = z_bar
        else:
            # line 21: z = -x
            x_d_bar = -z_bar
            y_bar = 0.0
        # adjoint of x: the sum over its uses
        x_bar = x_d_bar
    return x_bar, y_bar
