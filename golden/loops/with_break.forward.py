# s2sad golden file: golden/inputs/loops.py:with_break, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def with_break_jvp(x, n, x_dot):
    s = 0.0
    s_1 = s
    s_1_dot = 0.0
    for i in range(n):
        s_2 = s_1 + x * i
        s_2_dot = s_1_dot + x_dot * i
        if s_2 > 10.0:
            s_1 = s_2
            s_1_dot = s_2_dot
            break
        else:
            s_3 = s_2 * 1.1
            s_3_dot = s_2_dot * 1.1
            s_1 = s_3
            s_1_dot = s_3_dot
    return s_1, s_1_dot
