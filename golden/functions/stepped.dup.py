# s2sad golden file: golden/inputs/functions.py:stepped, stage dup, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

from s2sad.runtime import dup


def stepped(x, n):
    scale = 2.0
    scale_a, scale_b = dup(scale)
    x_1 = x
    for i in range(n):
        v_step1 = x_1
        k_step1 = 1.0
        y_step1 = v_step1 * scale_a
        y_step1_a, y_step1_b = dup(y_step1)
        t1 = y_step1_a > 1.0
        if t1:
            x_2 = y_step1_b - 1.0
        else:
            x_2 = y_step1_b + 1.0
        x_1 = x_2
    v_step2 = x_1
    k_step2 = 0.5
    y_step2 = v_step2 * scale_b
    y_step2_a, y_step2_b = dup(y_step2)
    t2 = y_step2_a > 1.0
    if t2:
        step2 = y_step2_b - 0.5
    else:
        step2 = y_step2_b + 0.5
    return step2
