# s2sad golden file: golden/inputs/loops.py:return_in_loop, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

from s2sad.runtime import dup


def return_in_loop(x):
    returned = False
    x_1 = x
    returned_1 = returned
    for i in range(20):
        x_2 = x_1 * 1.5
        x_2_a, x_2_b = dup(x_2)
        t1 = x_2_a > 5.0
        if t1:
            x_2_c, x_2_d = dup(x_2_b)
            retval_1 = x_2_c * 2.0
            returned_2 = True
            x_1 = x_2_d
            retval = retval_1
            returned_1 = returned_2
            break
        else:
            x_1 = x_2_b
    if returned_1:
        result = retval
    else:
        result = x_1
    return result
