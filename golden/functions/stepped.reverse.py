# s2sad golden file: golden/inputs/functions.py:stepped, stage reverse, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403


def stepped_grad(x, n):
    tape = []
    scale = 2.0
    x_1 = x
    for i in range(n):
        v_step1 = x_1
        y_step1 = v_step1 * scale
        t1 = y_step1 > 1.0
        if t1:
            x_2 = y_step1 - 1.0
        else:
            x_2 = y_step1 + 1.0
        tape.append(t1)
        x_1 = x_2
    v_step2 = x_1
    y_step2 = v_step2 * scale
    t2 = y_step2 > 1.0
    # line 33: return step(x, 0.5)
    step2_bar = 1.0
    # line 27: if y > 1.0:
    if t2:
        # line 33: return step(x, 0.5)
        y_step2_b_bar = step2_bar
    else:
        # line 33: return step(x, 0.5)
        y_step2_b_bar = step2_bar
    # line 26: y = v * scale
    v_step2_bar = y_step2_b_bar * scale
    # line 33: return step(x, 0.5)
    x_1_bar = v_step2_bar
    # line 31: for i in range(n):
    for i in reversed(range(n)):
        t1 = tape.pop()
        # line 32: x = step(x)
        x_2_bar = x_1_bar
        # line 27: if y > 1.0:
        if t1:
            # line 32: x = step(x)
            y_step1_b_bar = x_2_bar
        else:
            # line 32: x = step(x)
            y_step1_b_bar = x_2_bar
        # line 26: y = v * scale
        v_step1_bar = y_step1_b_bar * scale
        # line 32: x = step(x)
        x_1_bar = v_step1_bar
    x_bar = x_1_bar
    return x_bar
