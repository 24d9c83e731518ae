# s2sad golden file: golden/inputs/loops.py:return_in_loop, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def return_in_loop_grad(x):
    tape = []
    returned = False
    count = 0
    x_1 = x
    returned_1 = returned
    for i in range(20):
        count += 1
        x_2 = x_1 * 1.5
        t1 = x_2 > 5.0
        if t1:
            returned_2 = True
            tape.append(t1)
            x_1 = x_2
            returned_1 = returned_2
            break
        else:
            tape.append(t1)
            x_1 = x_2
    # line 44: return x
    result_bar = 1.0
    # line 40: for i in range(20):
    if returned_1:
        retval_bar = result_bar
        x_1_bar = 0.0
    else:
        # line 44: return x
        x_1_bar = result_bar
        retval_bar = 0.0
    # line 40: for i in range(20):
    for i in reversed(range(20)[:count]):
        t1 = tape.pop()
        # line 42: if x > 5.0:
        if t1:
            # line 43: return x * 2.0
            retval_1_bar = retval_bar
            x_2_d_bar = x_1_bar
            x_2_c_bar = retval_1_bar * 2.0
            # adjoint of x_2: the sum over its uses
            x_2_b_bar = x_2_c_bar + x_2_d_bar
            retval_bar = 0.0
        else:
            # line 43: return x * 2.0
            x_2_b_bar = x_1_bar
        # line 41: x = x * 1.5
        x_1_bar = x_2_b_bar * 1.5
    x_bar = x_1_bar
    return x_bar
