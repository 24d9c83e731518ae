# s2sad golden file: golden/inputs/loops.py:return_in_loop, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def return_in_loop(x):
    returned = False
    x_1 = x
    returned_1 = returned
    for i in range(20):
        x_2 = x_1 * 1.5
        t1 = x_2 > 5.0
        if t1:
            retval_1 = x_2 * 2.0
            returned_2 = True
            x_1 = x_2
            retval = retval_1
            returned_1 = returned_2
            break
        else:
            x_1 = x_2
    if returned_1:
        result = retval
    else:
        result = x_1
    return result
