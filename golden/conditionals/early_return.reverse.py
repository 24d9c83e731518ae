# s2sad golden file: golden/inputs/conditionals.py:early_return, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.conditionals import *  # noqa: F401,F403


def early_return_grad(x):
    t1 = x < 0
    if not t1:
        y = x * x
        t2 = y > 4
    # line 31: return y + x
    result_bar = 1.0
    # line 26: if x < 0:
    if t1:
        # line 27: return -x
        x_bar = -1.0
    else:
        # line 29: if y > 4:
        if t2:
            # line 30: return y
            y_b_bar = result_bar
            x_e_bar = 0.0
        else:
            # line 31: return y + x
            y_b_bar = result_bar
            x_e_bar = result_bar
        # line 28: y = x * x
        x_c_bar = y_b_bar * x
        # adjoint of x: the sum over its uses
        x_bar = x_c_bar + x_c_bar + x_e_bar
    return x_bar
