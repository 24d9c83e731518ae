# s2sad golden file: golden/inputs/loops.py:return_in_loop, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def return_in_loop_jvp(x, x_dot):
    returned = False
    x_1 = x
    returned_1 = returned
    x_1_dot = x_dot
    for i in range(20):
        x_2 = x_1 * 1.5
        x_2_dot = x_1_dot * 1.5
        if x_2 > 5.0:
            retval_1 = x_2 * 2.0
            retval_1_dot = x_2_dot * 2.0
            returned_2 = True
            x_1 = x_2
            x_1_dot = x_2_dot
            retval = retval_1
            retval_dot = retval_1_dot
            returned_1 = returned_2
            break
        else:
            x_1 = x_2
            x_1_dot = x_2_dot
    if returned_1:
        result = retval
        result_dot = retval_dot
    else:
        result = x_1
        result_dot = x_1_dot
    return result, result_dot
