# s2sad golden file: golden/inputs/loops.py:nested, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def nested_jvp(x, n, x_dot):
    s = x
    s_1 = s
    s_1_dot = x_dot
    for i in range(n):
        s_2 = s_1
        s_2_dot = s_1_dot
        for j in range(i):
            t1 = s_2 * 0.9
            t1_dot = s_2_dot * 0.9
            t2 = x * j
            t2_dot = x_dot * j
            s_3 = t1 + t2
            s_3_dot = t1_dot + t2_dot
            s_2 = s_3
            s_2_dot = s_3_dot
        s_1 = s_2
        s_1_dot = s_2_dot
    return s_1, s_1_dot
