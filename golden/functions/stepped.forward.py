# s2sad golden file: golden/inputs/functions.py:stepped, stage forward, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403


def stepped_jvp(x, n, x_dot):
    scale = 2.0
    x_1 = x
    x_1_dot = x_dot
    for i in range(n):
        v_step1 = x_1
        v_step1_dot = x_1_dot
        y_step1 = v_step1 * scale
        y_step1_dot = v_step1_dot * scale
        if y_step1 > 1.0:
            x_2 = y_step1 - 1.0
            x_2_dot = y_step1_dot
        else:
            x_2 = y_step1 + 1.0
            x_2_dot = y_step1_dot
        x_1 = x_2
        x_1_dot = x_2_dot
    v_step2 = x_1
    v_step2_dot = x_1_dot
    y_step2 = v_step2 * scale
    y_step2_dot = v_step2_dot * scale
    if y_step2 > 1.0:
        step2 = y_step2 - 0.5
        step2_dot = y_step2_dot
    else:
        step2 = y_step2 + 0.5
        step2_dot = y_step2_dot
    return step2, step2_dot
