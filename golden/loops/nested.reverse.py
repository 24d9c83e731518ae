# s2sad golden file: golden/inputs/loops.py:nested, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def nested_grad(x, n):
    # line 52: return s
    s_1_bar = 1.0
    # line 49: for i in range(n):
    x_b_bar = 0.0
    for i in reversed(range(n)):
        # line 51: s = s * 0.9 + x * j
        s_2_bar = s_1_bar
        # line 50: for j in range(i):
        for j in reversed(range(i)):
            # line 51: s = s * 0.9 + x * j
            s_3_bar = s_2_bar
            x_b_bar += s_3_bar * j
            s_2_bar = s_3_bar * 0.9
        s_1_bar = s_2_bar
    s_bar = s_1_bar
    # adjoint of x: the sum over its uses
    x_bar = s_bar + x_b_bar
    return x_bar
