# s2sad golden file: golden/inputs/functions.py:stepped, stage anf, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403


def stepped(x, n):
    scale = 2.0
    x_1 = x
    for i in range(n):
        v_step1 = x_1
        k_step1 = 1.0
        y_step1 = v_step1 * scale
        t1 = y_step1 > 1.0
        if t1:
            x_2 = y_step1 - 1.0
        else:
            x_2 = y_step1 + 1.0
        x_1 = x_2
    v_step2 = x_1
    k_step2 = 0.5
    y_step2 = v_step2 * scale
    t2 = y_step2 > 1.0
    if t2:
        step2 = y_step2 - 0.5
    else:
        step2 = y_step2 + 0.5
    return step2
